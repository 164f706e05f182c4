// The fused transformer ops on the recording CUDA runtime: a small ViT whose linear layers carry
// their bias (cuBLASLt's epilogue) and GELU (the bias_activation kernel after) and whose
// residual sums are AddLayerNorm (binary then layer_norm kernels) captures and replays legally
// and race-free, and so does one whose attention is FusedAttention (its primitive kernels: two
// cuBLASLt calls around the scale, mask and softmax kernels, the scores in workspaces).
#include <gtest/gtest.h>

#include "autograph/cuda/runtime.hpp"
#include "autograph/models/vit.hpp"
#include "autograph/rules/apply_greedily.hpp"
#include "autograph/rules/transformer_fusion_engine.hpp"
#include "autograph/schedule/nimble.hpp"
#include "recording.hpp"

namespace autograph::cuda {
namespace {

using NoAttention = rules::RuleEngine<BuiltinOps, rules::Rules<rules::FuseMatMulBias, rules::FuseMatMulGelu, rules::FuseAddLayerNorm,
                                                               rules::FuseAddLayerNormKeepSum>>;

Graph<> small_vit() {
  return models::vit({.patch = 8, .layers = 2, .hidden = 32, .heads = 4, .mlp = 64, .num_classes = 10}, {.batch = 1, .resolution = 16, .weight_seed = 3});
}

/// Lowers, captures and replays `g` once under a Nimble schedule; the recording's check.
recording::Report record(Graph<> const& g) {
  CudaGraphRuntime rt;
  auto lowered = rt.lower(g, {.random_weights = 1});
  recording::recorder().reset();
  {
    GraphExecutable exe(lowered, schedule::nimble(KernelDag(g)));
    exe.launch();
    exe.synchronize();
  }
  return recording::check(recording::recorder());
}

TEST(RecordingFused, BiasGeluAndAddLayerNormCaptureLegally) {
  Graph<> g = rules::apply_greedily(small_vit(), NoAttention{}).graph;
  std::size_t biased = 0, norms = 0;
  for (NodeId id : g.node_ids()) {
    biased += g[id].op.is<MatMul>() && g[id].inputs.size() == 3;
    norms += g[id].op.is<AddLayerNorm>();
  }
  EXPECT_EQ(biased, 2u * 4 + 1);
  EXPECT_EQ(norms, 5u);
  recording::Report r = record(g);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.captures, 1u);
}

TEST(RecordingFused, FusedAttentionAsItsPrimitiveKernelsCapturesLegally) {
  Graph<> g = rules::apply_greedily(small_vit(), rules::TransformerFusionEngine{}).graph;
  std::size_t attention = 0;
  for (NodeId id : g.node_ids()) attention += g[id].op.is<FusedAttention>();
  EXPECT_EQ(attention, 2u);
  recording::Report r = record(g);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.captures, 1u);
}

}  // namespace
}  // namespace autograph::cuda
