// Graph cost policies: the sums they are made of, on graphs whose answer is worked out by hand.
#include <autograph/cost/policy.hpp>
#include <autograph/cost/roofline.hpp>
#include <autograph/graph/builder.hpp>
#include <gtest/gtest.h>

namespace autograph {
namespace {

/// A cost model for hand-checked sums: each op type has a fixed cost.
struct ByName {
  KernelCost estimate(AnyOp const& op, std::span<TensorDesc const>, std::span<TensorDesc const>) const {
    if (op.is<Conv2D>()) return {10, 0.1, 1};
    if (op.is<Relu>()) return {2, 0.1, 1};
    if (op.is<Add>()) return {3, 0.1, 1};
    return {1, 0.1, 1};
  }
  std::string describe() const { return "by name"; }
};

static_assert(OpCostModel<ByName>);
static_assert(CostPolicy<SumCost> && CostPolicy<CriticalPath> && CostPolicy<MixedCriticalPath<>> && CostPolicy<MixedCriticalPath<0.5>>);
static_assert(!CostPolicy<int>);
static_assert(CostedGraph<NodeCosts<BuiltinOps>>);
static_assert(MixedCriticalPath<>::alpha == 0.25);

// x -> conv -> relu --------> add -> relu
// x -> conv -> relu ----------^           (weights cost nothing)
Graph<> diamond() {
  GraphBuilder b;
  auto x = b.input("x", {1, 8, 8, 8});
  auto a = b.relu(b.conv2d(x, 8, {3, 3}));
  auto c = b.relu(b.conv2d(x, 8, {3, 3}));
  return std::move(b).build({b.relu(b.add(a, c))});
}

TEST(CostPolicies, SumCriticalPathAndTheMixOfBoth) {
  auto g = diamond();
  auto costs = node_costs(g, ByName{});
  EXPECT_DOUBLE_EQ(total_cost(costs), 2 * (10 + 2) + 3 + 2);
  EXPECT_DOUBLE_EQ(critical_path_cost(costs), 10 + 2 + 3 + 2);
  EXPECT_DOUBLE_EQ(SumCost{}(costs), 29);
  EXPECT_DOUBLE_EQ(CriticalPath{}(costs), 17);
  EXPECT_DOUBLE_EQ(MixedCriticalPath<>{}(costs), 0.25 * 17 + 29);
  EXPECT_DOUBLE_EQ(MixedCriticalPath<1.0>{}(costs), 17 + 29);
  EXPECT_DOUBLE_EQ(graph_cost(MixedCriticalPath<0.5>{}, g, ByName{}), 0.5 * 17 + 29);
}

TEST(CostPolicies, ParallelBranchesLowerTheCriticalPathNotTheSum) {
  GraphBuilder b;
  auto x = b.input("x", {1, 8, 8, 8});
  Value chain = x;
  for (int i = 0; i < 4; ++i) chain = b.relu(chain);
  auto serial = b.graph();
  serial.set_outputs({chain});
  GraphBuilder p;
  auto y = p.input("x", {1, 8, 8, 8});
  std::vector<Value> branches;
  for (int i = 0; i < 4; ++i) branches.push_back(p.relu(y));
  auto parallel = std::move(p).build(branches);
  auto cs = node_costs(serial, ByName{}), cp = node_costs(parallel, ByName{});
  EXPECT_DOUBLE_EQ(total_cost(cs), total_cost(cp));
  EXPECT_DOUBLE_EQ(critical_path_cost(cs), 8);
  EXPECT_DOUBLE_EQ(critical_path_cost(cp), 2);
  EXPECT_LT(MixedCriticalPath<>{}(cp), MixedCriticalPath<>{}(cs));
}

TEST(CostPolicies, RooflineCostsOfARealGraphArePositiveAndOrdered) {
  auto g = diamond();
  auto costs = node_costs(g, RooflineCost{});
  EXPECT_GT(critical_path_cost(costs), 0);
  EXPECT_LT(critical_path_cost(costs), total_cost(costs));
  for (NodeId id : g.node_ids()) {
    if (g[id].is<Weight>() || g[id].is<Input>()) {
      EXPECT_EQ(costs.us[id], 0);
    }
  }
}

}  // namespace
}  // namespace autograph
