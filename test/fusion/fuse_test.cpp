// fusion::fuse_by_dp() with synthetic costs: DPOF leaves a group that is made slower fused
// unfused where greedy fusion fuses it, picks the cheaper of two overlapping groups, equals
// brute force over the groups of a small graph, and is never worse than greedy's first pass
// under the cost it uses.
#include <gtest/gtest.h>

#include <autograph/fusion/fuse.hpp>
#include <autograph/graph/builder.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/models/vit.hpp>
#include <autograph/rules/apply_greedily.hpp>
#include <autograph/rules/transformer_fusion_engine.hpp>
#include <autograph/runtime/equivalence.hpp>

#include <random>
#include "testing/graph_queries.hpp"

namespace autograph::fusion {
namespace fuse_test {
using autograph::testing::count_ops;

using Engine = rules::TransformerFusionEngine;

/// Every rule's fusion saves `saving`, except `slower`'s, which costs `penalty` more fused.
auto synthetic(std::string slower, double saving = 1, double penalty = 1) {
  return [=](Graph<> const&, FusionGroup const& grp) {
    return grp.rule == slower ? GroupCost{10 + penalty, 10} : GroupCost{10 - saving, 10};
  };
}

/// layer_norm(matmul(x, w) + bias): the Add is in both fuse-matmul-bias and fuse-add-layer-norm.
Graph<> overlapping() {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 4, 8});
  Value y = b.add(b.linear(x, 8, false), b.weight("bias", Shape{8}, WeightInit::uniform));
  return std::move(b).build({b.layer_norm(y)});
}

TEST(FuseByDp, OverlappingGroupsFuseTheCheaperOne) {
  Graph<> g = overlapping();
  fill_random_weights(g, 3);
  auto groups = fusion_groups(g, Engine{});
  ASSERT_EQ(groups.size(), 2u);
  auto cost = [](double bias_saving, double norm_saving) {
    return [=](Graph<> const&, FusionGroup const& grp) {
      return GroupCost{10 - (grp.rule == "fuse-matmul-bias" ? bias_saving : norm_saving), 10};
    };
  };
  auto norm = fuse_by_dp(g, Engine{}, cost(1, 2));
  EXPECT_EQ(count_ops(norm.graph, "AddLayerNorm"), 1u);
  EXPECT_EQ(norm.rounds.front().delta, -2);
  auto bias = fuse_by_dp(g, Engine{}, cost(2, 1));
  EXPECT_EQ(count_ops(bias.graph, "AddLayerNorm"), 0u);
  EXPECT_EQ(count_ops(bias.graph, "LayerNorm"), 1u);
  EXPECT_EQ(bias.rounds.front().delta, -2);
  for (auto const* r : {&norm, &bias}) {
    validate(r->graph);
    auto c = compare_graphs(g, r->graph, 1e-4, 5);
    EXPECT_TRUE(c.passed) << c.why;
  }
}

TEST(FuseByDp, LeavesASlowerFusionUnfusedWhereGreedyFusesIt) {
  Graph<> g = models::vit_b_16({.resolution = 32});
  auto greedy = rules::apply_greedily(g, Engine{});
  auto dp = fuse_by_dp(g, Engine{}, synthetic("fuse-attention"));
  EXPECT_EQ(count_ops(greedy.graph, "FusedAttention"), 12u);
  EXPECT_EQ(count_ops(dp.graph, "FusedAttention"), 0u);
  EXPECT_EQ(count_ops(dp.graph, "Softmax"), 12u);
  // Everything else fuses as greedy fuses it.
  EXPECT_EQ(count_ops(dp.graph, "AddLayerNorm"), count_ops(greedy.graph, "AddLayerNorm"));
  EXPECT_EQ(count_ops(dp.graph, "MatMul"), count_ops(greedy.graph, "MatMul") + 24);  // the two matmuls of each unfused attention
  EXPECT_EQ(dp.total_applications() + 12, greedy.total_applications());
  validate(dp.graph);
  // Fusing everything, the two agree.
  auto all = fuse_by_dp(g, Engine{}, synthetic("none"));
  EXPECT_EQ(all.applications, greedy.applications);
}

TEST(FuseByDp, AChainIsWeighedAsAWhole) {
  // The bias alone is slower fused, the bias then the GELU faster: with chains DPOF fuses the
  // 12 MLP matmul+bias+GELU chains, without them it refuses their first step and never sees
  // the second.
  Graph<> g = models::vit_b_16({.resolution = 32});
  auto cost = [](Graph<> const&, FusionGroup const& grp) {
    if (grp.rule == "fuse-matmul-bias") return GroupCost{11, 10};
    if (grp.rule == "fuse-matmul-bias+fuse-matmul-gelu") return GroupCost{7, 10};
    return GroupCost{10, 10};
  };
  auto groups = fusion_groups(g, Engine{}, true);
  std::size_t chains = 0;
  for (auto const& grp : groups) chains += grp.rule == "fuse-matmul-bias+fuse-matmul-gelu";
  EXPECT_EQ(chains, 12u);
  auto with = fuse_by_dp(g, Engine{}, cost);
  auto without = fuse_by_dp(g, Engine{}, cost, {.chains = false});
  EXPECT_EQ(with.total_applications(), 24u);
  EXPECT_EQ(with.rounds.front().delta, -36);
  EXPECT_EQ(without.total_applications(), 0u);
  fill_random_weights(g, 2);
  auto fused = fuse_by_dp(g, Engine{}, cost);
  validate(fused.graph);
  auto c = compare_graphs(g, fused.graph, 1e-3, 6);
  EXPECT_TRUE(c.passed) << c.why;
}

/// Costs from a hash of the group's nodes: any mix of faster and slower fusions.
auto random_cost(std::uint64_t seed) {
  return [=](Graph<> const&, FusionGroup const& grp) {
    std::uint64_t h = seed;
    for (NodeId n : grp.nodes) h = h * 1000003u + n;
    std::mt19937_64 rng(h);
    return GroupCost{std::uniform_real_distribution<double>(0, 2)(rng), 1};
  };
}

TEST(FuseByDp, NeverWorseThanGreedysPassUnderItsCost) {
  Graph<> g = models::vit_b_16({.resolution = 32});
  Engine engine;
  auto groups = fusion_groups(g, engine);
  std::vector<rules::FoundMatch> matches;
  for (auto const& grp : groups) matches.push_back(grp.match);
  // Greedy's first pass: every match that apply_independent() can apply together.
  auto pass = rules::apply_independent(engine, g, std::span<rules::FoundMatch const>(matches));
  ASSERT_FALSE(pass.applied.empty());
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto cost = random_cost(seed);
    double greedy = 0;
    for (std::size_t k : pass.applied) greedy += cost(g, groups[k]).delta();
    auto dp = fuse_by_dp(g, engine, cost, {.max_rounds = 1});
    ASSERT_EQ(dp.rounds.size(), 1u);
    EXPECT_LE(dp.rounds[0].delta, greedy) << "seed " << seed;
    EXPECT_LT(dp.rounds[0].chosen.size(), pass.applied.size()) << "seed " << seed << ": some fusions are slower under this cost";
  }
}

}  // namespace fuse_test
}  // namespace autograph::fusion
