#pragma once
// Graph cost policies: how a search ranks candidate graphs. Each is a tiny type whose body is
// its equation; the search is generic over the CostPolicy concept.
#include <concepts>
#include <string_view>

#include "autograph/cost/graph_cost.hpp"

namespace autograph {

/// Σ op cost: every kernel runs one after another (TASO, MetaFlow).
struct SumCost {
  static constexpr std::string_view name = "sum";
  double operator()(CostedGraph auto const& g) const { return total_cost(g); }
};

/// The longest path by cost: the latency with unlimited, free parallelism.
struct CriticalPath {
  static constexpr std::string_view name = "critical-path";
  double operator()(CostedGraph auto const& g) const { return critical_path_cost(g); }
};

/// AutoGraph Eq. 1: α · (critical-path cost) + (total cost). The total keeps the search from
/// buying a shorter critical path with more work the device has to do anyway.
template <double Alpha = 0.25>
struct MixedCriticalPath {
  static constexpr std::string_view name = "mixed-critical-path";
  static constexpr double alpha = Alpha;
  double operator()(CostedGraph auto const& g) const { return Alpha * critical_path_cost(g) + total_cost(g); }
};

template <class P>
concept CostPolicy = std::default_initializable<P> && requires(P const& p, NodeCosts<BuiltinOps> const& g) {
  { P::name } -> std::convertible_to<std::string_view>;
  { p(g) } -> std::convertible_to<double>;
};

/// The policy's cost of `g` under `model`, in microseconds.
template <CostPolicy P, class Set, OpCostModel M>
double graph_cost(P const& policy, Graph<Set> const& g, M const& model) {
  return policy(node_costs(g, model));
}

}  // namespace autograph
