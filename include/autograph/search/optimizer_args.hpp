#pragma once
// What Optimizer<G, RuleSet, CostP, RuntimeT> requires of each argument, one concept per
// requirement, so that its entry point can say which one failed.
#include <concepts>
#include <string>
#include <type_traits>

#include "autograph/cost/op_cost_model.hpp"
#include "autograph/cost/policy.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/rules/rule.hpp"

namespace autograph {

/// G is Graph<Set> for an operator set Set.
template <class G>
concept GraphOverOpSet = requires { typename G::OpSet; } && std::same_as<G, Graph<typename G::OpSet>>;

template <class List, class Set>
inline constexpr bool is_rule_list_for = false;
template <class... Rs, class Set>
inline constexpr bool is_rule_list_for<rules::Rules<Rs...>, Set> = (rules::Rule<Rs, Set> && ...);

/// List is rules::Rules<R...> and every R models rules::Rule for Set.
template <class List, class Set>
concept RuleListFor = is_rule_list_for<List, Set>;

/// What the optimizer asks of a runtime: measure a graph (ms), give the cost model its
/// estimates use, and say what kind of runtime it is (reports print it).
template <class R, class Set>
concept OptimizerRuntime = std::movable<R> && requires(R& r, R const& cr, Graph<Set> const& g) {
  { r.measure(g) } -> std::convertible_to<double>;
  { cr.kind() } -> std::convertible_to<std::string>;
  requires OpCostModel<std::remove_cvref_t<decltype(cr.cost_model())>>;
};

template <class G, class RuleSet, class CostP, class RuntimeT>
concept OptimizerArgs = GraphOverOpSet<G> && RuleListFor<RuleSet, typename G::OpSet> && CostPolicy<CostP> &&
                        OptimizerRuntime<RuntimeT, typename G::OpSet>;

}  // namespace autograph
