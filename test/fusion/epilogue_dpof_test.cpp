// DPOF over the elementwise chains into their producer (rules::EpilogueFusion inside the
// transformer fusions): on DETR's backbone blocks (ResNet bottlenecks with frozen BatchNorm) the
// residual add joins its convolution only where the cost says the fused group is faster, and
// the chosen graph computes what the source does.
#include <gtest/gtest.h>

#include <autograph/fusion/fuse.hpp>
#include <autograph/graph/builder.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/models/resnet.hpp>
#include <autograph/rules/transformer_fusion_engine.hpp>
#include <autograph/runtime/equivalence.hpp>
#include "testing/graph_queries.hpp"

namespace autograph::fusion {
namespace {
using autograph::testing::count_ops;

/// Two bottlenecks of DETR's backbone (the first with a downsample shortcut), 16 x 16.
Graph<> backbone_blocks() {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 32, 16, 16});
  x = models::detail::bottleneck(b, x, 16, 1, {.frozen_batch_norm = true});
  x = models::detail::bottleneck(b, x, 16, 1, {.frozen_batch_norm = true});
  Graph<> g = std::move(b).build({x});
  fill_random_weights(g, 4);
  return g;
}

/// Every group saves 1, but those whose rule (or chain) contains `slower`, which cost 1 more fused.
auto synthetic(std::string slower) {
  return [=](Graph<> const&, FusionGroup const& grp) {
    return grp.rule.find(slower) != std::string::npos ? GroupCost{11, 10} : GroupCost{9, 10};
  };
}

TEST(EpilogueDpof, ResidualChainsFuseWhereFasterAndStayWhereSlower) {
  Graph<> g = backbone_blocks();
  rules::TransformerFusionEngine engine;
  auto fast = fuse_by_dp(g, engine, synthetic("no rule has this name"));
  validate(fast.graph);
  EXPECT_EQ(count_ops(fast.graph, "BatchNorm"), 0u);
  EXPECT_EQ(count_ops(fast.graph, "Add"), 0u);
  EXPECT_EQ(count_ops(fast.graph, "Relu"), 0u);
  EXPECT_EQ(count_ops(fast.graph, "Conv2DEpilogue"), 2u);
  auto c = compare_graphs(g, fast.graph, 1e-4, 3);
  EXPECT_TRUE(c.passed) << c.why;

  // The residual add made slower fused: DPOF folds the norms and fuses the ReLUs it can, but
  // leaves both residual adds (and the ReLU after each) unfused.
  auto slow = fuse_by_dp(g, engine, synthetic("fuse-conv-add"));
  validate(slow.graph);
  EXPECT_EQ(count_ops(slow.graph, "Conv2DEpilogue"), 0u);
  EXPECT_EQ(count_ops(slow.graph, "Add"), 2u);
  EXPECT_EQ(count_ops(slow.graph, "BatchNorm"), 0u);
  c = compare_graphs(g, slow.graph, 1e-4, 3);
  EXPECT_TRUE(c.passed) << c.why;
}

}  // namespace
}  // namespace autograph::fusion
