// apply_greedily(): a rule or an engine applied until nothing matches, a graph repeats, or the
// pass limit; with the applications of each rule and why it stopped.
#include <gtest/gtest.h>

#include <autograph/graph/structural_hash.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/rules/apply_greedily.hpp>
#include <autograph/rules/library/default.hpp>

#include "testing/graph_literal.hpp"

using namespace autograph;
using namespace autograph::rules;
using autograph::testing::graph_literal;
using autograph::testing::to_literal;

TEST(ApplyGreedily, FusesEveryConvReluOfAChainAndCountsThem) {
  // apply_independent() fuses every other link of the chain in one pass (a fusion touches the
  // next conv's input); the next pass takes the rest.
  auto chain = graph_literal("relu(conv2d<1>(relu(conv2d<1>(relu(conv2d<1>(x:1x4x8x8,u:weight:4x4x3x3)),v:weight:4x4x3x3)),w:weight:4x4x3x3))");
  auto r = apply_greedily(chain, FuseConvRelu{});
  validate(r.graph);
  EXPECT_TRUE(structurally_equal(
      r.graph, graph_literal("conv2d_relu<1>(conv2d_relu<1>(conv2d_relu<1>(x:1x4x8x8,u:weight:4x4x3x3),v:weight:4x4x3x3),w:weight:4x4x3x3)")))
      << to_literal(r.graph);
  ASSERT_EQ(r.applications.size(), 1u);
  EXPECT_EQ(r.applications[0], 3u);
  EXPECT_EQ(r.passes, 2u);
  EXPECT_EQ(r.stop, GreedyStop::saturated);
}

TEST(ApplyGreedily, AnEngineCountsApplicationsPerRule) {
  RuleEngine<BuiltinOps, Rules<TransposeTranspose, FuseMatMulRelu, CommuteMul>> engine;
  auto g = graph_literal("relu(matmul(transpose(transpose(a:2x3)),b:3x4)), sigmoid(c)");
  auto r = apply_greedily(g, engine);
  EXPECT_TRUE(structurally_equal(r.graph, graph_literal("matmul_relu(a:2x3,b:3x4), sigmoid(c)"))) << to_literal(r.graph);
  EXPECT_EQ(r.applications, (std::vector<std::size_t>{1, 1, 0}));
  EXPECT_EQ(r.total_applications(), 2u);
  EXPECT_EQ(r.stop, GreedyStop::saturated);
}

TEST(ApplyGreedily, ARuleAndItsInverseStopAtTheRepeatedGraph) {
  RuleEngine<BuiltinOps, Rules<MatMulReassociateRight, MatMulReassociateLeft>> engine;
  auto g = graph_literal("matmul(matmul(a:2x3,b:3x4),c:4x5)");
  auto r = apply_greedily(g, engine);
  EXPECT_EQ(r.stop, GreedyStop::repeated);
  EXPECT_EQ(r.passes, 2u);  // right, then left: back to the start
  EXPECT_EQ(r.applications, (std::vector<std::size_t>{1, 1}));
  EXPECT_TRUE(structurally_equal(r.graph, g)) << to_literal(r.graph);
}

TEST(ApplyGreedily, ThePassLimitStopsALongRun) {
  // Each pass re-associates one add of the left-nested sum (the matches overlap).
  auto g = graph_literal("add(add(add(add(a,b),c),d),e)");
  auto limited = apply_greedily(g, AssociateAdd{}, {.max_passes = 1});
  EXPECT_EQ(limited.stop, GreedyStop::pass_limit);
  EXPECT_EQ(limited.passes, 1u);
  EXPECT_EQ(limited.applications[0], 1u);
  auto full = apply_greedily(g, AssociateAdd{});
  EXPECT_EQ(full.stop, GreedyStop::saturated);
  EXPECT_TRUE(structurally_equal(full.graph, graph_literal("add(a,add(b,add(c,add(d,e))))"))) << to_literal(full.graph);
  auto none = apply_greedily(g, AssociateAdd{}, {.max_passes = 0});
  EXPECT_EQ(none.stop, GreedyStop::pass_limit);
  EXPECT_TRUE(structurally_equal(none.graph, g));
}

TEST(ApplyGreedily, NothingToDoIsSaturatedAtOnce) {
  auto g = graph_literal("relu(add(a,b))");
  auto r = apply_greedily(g, FuseConvRelu{});
  EXPECT_EQ(r.stop, GreedyStop::saturated);
  EXPECT_EQ(r.passes, 0u);
  EXPECT_EQ(r.total_applications(), 0u);
  EXPECT_TRUE(structurally_equal(r.graph, g));
  EXPECT_EQ(to_string(GreedyStop::repeated), "repeated a graph");
}
