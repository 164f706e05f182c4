// Optimizer's template arguments are checked at its entry point, one concept per argument,
// both ways: what models each and what does not. A failing check fails the build.
#include <autograph/rules/library/fusion.hpp>
#include <autograph/search/optimizer_args.hpp>
#include <tuple>

using namespace autograph;

namespace {
struct UnitCost {  // an OpCostModel: every kernel takes a microsecond
  KernelCost estimate(AnyOp const&, std::span<TensorDesc const>, std::span<TensorDesc const>) const { return {1.0, 1.0, 0.0}; }
  std::string describe() const { return "unit"; }
};
struct ToyRuntime {
  double measure(Graph<> const&) { return 1.0; }
  UnitCost cost_model() const { return {}; }
  std::string kind() const { return "toy"; }
};
struct NoCostModel {  // measures, but gives no cost model for the search's estimates
  double measure(Graph<> const&) { return 1.0; }
  std::string kind() const { return "toy"; }
};
struct NoKind {
  double measure(Graph<> const&) { return 1.0; }
  UnitCost cost_model() const { return {}; }
};
struct NotAPolicy {};
using FewRules = rules::Rules<rules::FuseConvRelu, rules::FuseMatMulRelu>;
}  // namespace

static_assert(OptimizerArgs<Graph<>, FewRules, MixedCriticalPath<0.25>, ToyRuntime>);
static_assert(OptimizerArgs<Graph<>, rules::Rules<>, SumCost, ToyRuntime>);

static_assert(GraphOverOpSet<Graph<>> && !GraphOverOpSet<int> && !GraphOverOpSet<BuiltinOps>);
static_assert(!OptimizerArgs<int, FewRules, SumCost, ToyRuntime>);

static_assert(RuleListFor<FewRules, BuiltinOps>);
static_assert(!RuleListFor<rules::FuseConvRelu, BuiltinOps>);          // a rule, not a list
static_assert(!RuleListFor<rules::Rules<rules::FuseConvRelu, int>, BuiltinOps>);  // int is no rule
static_assert(!OptimizerArgs<Graph<>, std::tuple<rules::FuseConvRelu>, SumCost, ToyRuntime>);

static_assert(CostPolicy<SumCost> && !CostPolicy<NotAPolicy>);
static_assert(!OptimizerArgs<Graph<>, FewRules, NotAPolicy, ToyRuntime>);

static_assert(OptimizerRuntime<ToyRuntime, BuiltinOps>);
static_assert(!OptimizerRuntime<NoCostModel, BuiltinOps> && !OptimizerRuntime<NoKind, BuiltinOps>);
static_assert(!OptimizerArgs<Graph<>, FewRules, SumCost, NoCostModel>);
