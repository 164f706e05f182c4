// rules::TransformerFusion applied greedily to the zoo's transformers: every attention block,
// every linear layer's bias (and the MLP's GELU) and every residual add + LayerNorm fused, and
// the fused graph computing what the original does on the reference executor.
#include <autograph/graph/validate.hpp>
#include <autograph/models/bert_encoder.hpp>
#include <autograph/models/vit.hpp>
#include <autograph/rules/apply_greedily.hpp>
#include <autograph/rules/transformer_fusion_engine.hpp>
#include <autograph/runtime/equivalence.hpp>

#include <cstdio>

#include "model_testing.hpp"

namespace autograph::models {
namespace {

using namespace testing;
using Engine = rules::TransformerFusionEngine;

Graph<> fuse(Graph<> const& g) {
  auto r = rules::apply_greedily(g, Engine{});
  EXPECT_EQ(r.stop, rules::GreedyStop::saturated);
  validate(r.graph);
  return std::move(r.graph);
}

std::size_t count_matmuls(Graph<> const& g, Activation act, std::size_t inputs) {
  return count_nodes(g, [&](auto const& n) {
    auto const* mm = n.op.template get_if<MatMul>();
    return mm && mm->act == act && n.inputs.size() == inputs;
  });
}
std::size_t count_kept_sums(Graph<> const& g) {
  return count_nodes(g, [](auto const& n) {
    auto const* a = n.op.template get_if<AddLayerNorm>();
    return a && a->keep_sum;
  });
}

TEST(TransformerFusion, VitB16FusesEveryBlock) {
  Graph<> g = fuse(vit_b_16());
  EXPECT_EQ(count_ops<FusedAttention>(g), 12u);  // all 12 attention blocks
  EXPECT_EQ(count_ops<Softmax>(g) + count_ops<Scale>(g) + count_ops<Gelu>(g), 0u);
  // Per block in_proj, out_proj, mlp.0 (+GELU), mlp.3, and the head: every bias in its matmul.
  EXPECT_EQ(count_matmuls(g, Activation::gelu, 3), 12u);
  EXPECT_EQ(count_matmuls(g, Activation::none, 3), 3u * 12 + 1);
  // The attention matmuls are inside FusedAttention: no plain matmul is left.
  EXPECT_EQ(count_matmuls(g, Activation::none, 2), 0u);
  // pos_add + ln_1, and each block's two residuals with the next LayerNorm: 25, all but the
  // last (read by encoder.ln only) keeping the sum for the next residual. No Add or LayerNorm left.
  EXPECT_EQ(count_ops<AddLayerNorm>(g), 25u);
  EXPECT_EQ(count_kept_sums(g), 24u);
  EXPECT_EQ(count_ops<Add>(g) + count_ops<LayerNorm>(g), 0u);
}

TEST(TransformerFusion, SmallVitComputesTheSame) {
  VitConfig c{.patch = 8, .layers = 2, .hidden = 32, .heads = 4, .mlp = 64, .num_classes = 10};
  Graph<> g = vit(c, {.batch = 2, .resolution = 16, .weight_seed = 3});
  Graph<> f = fuse(g);
  EXPECT_EQ(count_ops<FusedAttention>(f), 2u);
  EXPECT_EQ(count_matmuls(f, Activation::gelu, 3), 2u);
  auto cmp = compare_graphs(g, f, 1e-4, 17);
  EXPECT_TRUE(cmp.passed) << cmp.why;
  std::printf("small ViT fused: normwise error %.2e (output %zu)\n", cmp.error, cmp.output);
}

TEST(TransformerFusion, BertEncoderFusesEveryLayer) {
  Graph<> full = fuse(bert_encoder());
  EXPECT_EQ(count_ops<FusedAttention>(full), 8u);
  // post-LN: nothing else reads the 16 residual sums. Each joins its LayerNorm, or the product
  // before it (fuse-matmul-add) where a greedy pass meets that match first; DPOF chooses
  // between the two by measurement (fusion/).
  EXPECT_EQ(count_ops<AddLayerNorm>(full) + count_ops<MatMulEpilogue>(full), 16u);
  EXPECT_GE(count_ops<AddLayerNorm>(full), 8u);
  EXPECT_EQ(count_kept_sums(full), 0u);
  EXPECT_EQ(count_matmuls(full, Activation::gelu, 3), 8u);

  Graph<> g = bert_encoder({.layers = 2, .hidden = 32, .heads = 4, .ffn = 64, .tokens = 6}, {.batch = 2, .weight_seed = 5});
  auto cmp = compare_graphs(g, fuse(g), 1e-4, 19);
  EXPECT_TRUE(cmp.passed) << cmp.why;
  std::printf("small BERT encoder fused: normwise error %.2e\n", cmp.error);
}

}  // namespace
}  // namespace autograph::models
