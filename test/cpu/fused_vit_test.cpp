// A small ViT fused by rules::TransformerFusion runs on the CPU runtime (oneDNN for the biased
// matmuls and AddLayerNorm, the tiled kernel for FusedAttention) and computes what the
// unfused graph computes on the reference executor.
#include <gtest/gtest.h>

#include "autograph/cpu/runtime.hpp"
#include "autograph/models/vit.hpp"
#include "autograph/rules/apply_greedily.hpp"
#include "autograph/rules/transformer_fusion_engine.hpp"
#include "autograph/runtime/reference_executor.hpp"
#include "autograph/schedule/sequential.hpp"
#include "matches_reference.hpp"

namespace autograph::cpu {
namespace {

TEST(CpuFusedAttention, AFusedSmallVitMatchesTheUnfusedReference) {
  Graph<> g = models::vit({.patch = 8, .layers = 2, .hidden = 32, .heads = 4, .mlp = 64, .num_classes = 10},
                          {.batch = 2, .resolution = 16, .weight_seed = 3});
  Graph<> fused = rules::apply_greedily(g, rules::TransformerFusionEngine{}).graph;
  std::vector<Tensor> in{Tensor::random(g[g.inputs()[0]].outputs[0].shape, 40)};
  auto want = ReferenceExecutor<>().run(g, in);
  auto lowered = lower(fused);
  EXPECT_TRUE(lowered->fallbacks().empty());  // FusedAttention included: nothing through a reference kernel
  auto exe = CpuExecutable(lowered, schedule::sequential(KernelDag(fused)), {.check_arena = true, .cores = 2});
  EXPECT_TRUE(test::matches(exe.run(in), want, 1e-4));
}

}  // namespace
}  // namespace autograph::cpu
