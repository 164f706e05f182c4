// fusion::MeasuredGroupCost on the simulated H100 (roofline): ViT's 12 identical blocks are
// measured once per distinct group, and DPOF's graph under it computes what the model does.
#include <gtest/gtest.h>

#include <autograph/fusion/fuse.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/models/vit.hpp>
#include <autograph/rules/transformer_fusion_engine.hpp>
#include <autograph/runtime/equivalence.hpp>
#include <autograph/runtime/simulated_runtime.hpp>

namespace autograph::fusion {
namespace {

using Engine = rules::TransformerFusionEngine;
using Sim = SimulatedRuntime<devices::AtRunTime>;

TEST(MeasuredGroupCost, MeasuresEachDistinctGroupOnce) {
  Graph<> g = models::vit_b_16({.resolution = 32});
  Sim sim(devices::H100::spec);
  Engine engine;
  MeasuredGroupCost<BuiltinOps, Sim, Engine> cost(sim, engine);
  auto groups = fusion_groups(g, engine);
  ASSERT_GE(groups.size(), 12u * 4);
  for (auto const& grp : groups) {
    GroupCost c = cost(g, grp);
    EXPECT_GT(c.unfused, 0) << grp.rule;
    EXPECT_GT(c.fused, 0) << grp.rule;
  }
  // Per block: attention, q/k/v/out/fc1/fc2 biases, two residual norms at most — shared by the 12.
  EXPECT_LE(cost.measured(), groups.size() / 12 + 2);
  EXPECT_EQ(cost.measured() + cost.hits(), groups.size());
}

TEST(MeasuredGroupCost, DpofUnderTheRooflineKeepsTheModelsOutputs) {
  Graph<> g = models::vit_b_16({.resolution = 32});
  fill_random_weights(g, 9);
  Sim sim(devices::H100::spec);
  Engine engine;
  MeasuredGroupCost<BuiltinOps, Sim, Engine> cost(sim, engine);
  auto r = fuse_by_dp(g, engine, cost);
  ASSERT_FALSE(r.rounds.empty());
  EXPECT_LT(r.rounds.front().delta, 0);
  validate(r.graph);
  auto c = compare_graphs(g, r.graph, 1e-3, 4);
  EXPECT_TRUE(c.passed) << c.why;
}

}  // namespace
}  // namespace autograph::fusion
