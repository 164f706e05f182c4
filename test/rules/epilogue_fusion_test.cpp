// rules::EpilogueFusion (elementwise chains into their producer): every rule verified
// numerically on random examples, and claims about what they build (start graph => fused ops).
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/models/resnet.hpp>
#include <autograph/rules/apply_greedily.hpp>
#include <autograph/rules/transformer_fusion_engine.hpp>
#include <autograph/rules/verify.hpp>
#include <autograph/runtime/equivalence.hpp>
#include "testing/graph_queries.hpp"

namespace autograph::rules {
namespace {
using autograph::testing::count_ops;

/// Greedy TransformerFusion (which ends with EpilogueFusion), validated and checked against the source.
Graph<> fuse(Graph<> g) {
  fill_random_weights(g, 5);
  auto r = apply_greedily(g, TransformerFusionEngine{});
  validate(r.graph);
  auto c = compare_graphs(g, r.graph, 1e-4, 11);
  EXPECT_TRUE(c.passed) << c.why;
  return std::move(r.graph);
}

TEST(EpilogueFusion, EveryRuleVerifiesNumerically) {
  auto results = verify_rules<BuiltinOps>(EpilogueFusion{}, {.trials = 4});
  ASSERT_EQ(results.size(), EpilogueFusion::size);
  for (auto const& r : results) {
    EXPECT_EQ(r.verdict, Verdict::verified) << to_string(r);
    EXPECT_GE(r.checks, 4) << r.rule;
  }
}

TEST(EpilogueFusion, ResNetBottlenecksWithFrozenBatchNormBecomeConvsWithTheirResidual) {
  // DETR's backbone: ResNet-50's bottlenecks with frozen BatchNorm, here two stages at 32 px.
  GraphBuilder b;
  Value x = b.input("x", {1, 32, 16, 16});
  x = models::detail::bottleneck(b, x, 16, 1, {.frozen_batch_norm = true});  // 32 -> 64 channels: a downsample shortcut
  x = models::detail::bottleneck(b, x, 16, 1, {.frozen_batch_norm = true});  // the identity shortcut
  Graph<> fused = fuse(std::move(b).build({x}));
  EXPECT_EQ(count_ops(fused, "BatchNorm"), 0u);
  EXPECT_EQ(count_ops(fused, "Relu"), 0u);
  EXPECT_EQ(count_ops(fused, "Add"), 0u);
  // each block's last conv (or its downsample conv) takes the residual and the ReLU after it
  std::size_t residual_relu = 0;
  for (NodeId id : fused.node_ids())
    if (auto const* e = fused[id].op.get_if<Conv2DEpilogue>())
      residual_relu += e->count == 2 && e->steps[0] == EpilogueStep::add() && e->steps[1] == EpilogueStep::activation(Activation::relu);
  EXPECT_EQ(residual_relu, 2u);
}

TEST(EpilogueFusion, AResidualThatALayerNormReadsGoesToAddLayerNorm) {
  GraphBuilder b;
  Value x = b.input("x", {1, 5, 8});
  Value y = b.layer_norm(b.add(x, b.linear(x, 8, true)));
  Graph<> fused = fuse(std::move(b).build({y}));
  EXPECT_EQ(count_ops(fused, "AddLayerNorm"), 1u);
  EXPECT_EQ(count_ops(fused, "MatMulEpilogue"), 0u);
}

TEST(EpilogueFusion, ALinearLayersResidualAndScaleJoinItsProduct) {
  GraphBuilder b;
  Value x = b.input("x", {2, 5, 8});
  Value y = b.scale(b.relu(b.add(b.linear(x, 8, true), x)), 0.5f);
  Graph<> fused = fuse(std::move(b).build({y}));
  ASSERT_EQ(count_ops(fused, "MatMulEpilogue"), 1u);
  EXPECT_EQ(fused.num_nodes(), 4u);  // x, w, bias, the epilogue
  for (NodeId id : fused.node_ids())
    if (auto const* e = fused[id].op.get_if<MatMulEpilogue>()) {
      EXPECT_TRUE(e->bias);
      EXPECT_EQ(e->count, 3);
      EXPECT_EQ(e->steps[2], EpilogueStep::affine(0.5f, 0.f));
    }
}

TEST(EpilogueFusion, NoStepWhenTheIntermediateIsReadElsewhereOrTheOperandBroadcasts) {
  GraphBuilder b;
  Value x = b.input("x", {1, 4, 6, 6});
  Value c = b.conv2d(x, 4, {3, 3});
  Value sum = b.add(c, x);
  Value other = b.relu(c);                                 // c read twice: the add cannot take it
  Value chan = b.add(b.conv2d(x, 4, {1, 1}), b.input("per_channel", {1, 4, 1, 1}));  // a broadcast addend
  Graph<> fused = fuse(std::move(b).build({sum, other, chan}));
  EXPECT_EQ(count_ops(fused, "Conv2DEpilogue"), 0u);
}

}  // namespace
}  // namespace autograph::rules
