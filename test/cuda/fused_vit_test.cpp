// A small ViT after TransformerFusion (FusedAttention, MatMul + bias + GELU, AddLayerNorm) on
// the GPU against the reference executor, in FP32. Skips without a GPU.
#include <gtest/gtest.h>

#include "autograph/models/vit.hpp"
#include "autograph/rules/apply_greedily.hpp"
#include "autograph/rules/transformer_fusion_engine.hpp"
#include "cuda_testing.hpp"

namespace autograph::cuda {
namespace {

TEST(CudaFusedOps, AFusedVitMatchesTheReference) {
  AUTOGRAPH_REQUIRE_GPU();
  Graph<> vit = models::vit({.patch = 8, .layers = 2, .hidden = 64, .heads = 4, .mlp = 128, .num_classes = 10},
                            {.batch = 2, .resolution = 32, .weight_seed = 3});
  Graph<> g = rules::apply_greedily(vit, rules::TransformerFusionEngine{}).graph;
  expect_matches_reference(g, random_inputs(g), fp32_gemm, fp32, "fused ViT");
}

}  // namespace
}  // namespace autograph::cuda
