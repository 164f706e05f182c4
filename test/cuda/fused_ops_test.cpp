// The fused transformer ops on the GPU against the reference executor, in FP32 (no TF32):
// FusedAttention's kernel (both tile configurations, partial tiles, broadcast batches and
// masks, a causal mask, ViT-B's head shape), AddLayerNorm's kernel with and without the sum,
// a linear layer with bias and GELU (a small fused ViT end to end: fused_vit_test.cpp).
// Skips without a GPU (AUTOGRAPH_REQUIRE_GPU=1 makes that a failure). The same lowerings and
// the CPU versions of the kernels are checked without a GPU in host/fused_launches_test.cpp.
#include <gtest/gtest.h>

#include <limits>

#include "cuda_testing.hpp"

namespace autograph::cuda {
namespace {

TEST(CudaFusedOps, FusedAttention) {
  AUTOGRAPH_REQUIRE_GPU();
  struct Case {
    Shape q, kt, v;
    std::optional<Shape> mask;
  };
  std::vector<Case> cases = {
      {{1, 12, 197, 64}, {1, 12, 64, 197}, {1, 12, 197, 64}, {}},          // ViT-B/16's attention
      {{1, 2, 5, 8}, {1, 2, 8, 37}, {1, 2, 37, 6}, Shape{37}},
      {{2, 3, 40, 16}, {3, 16, 70}, {1, 70, 16}, Shape{1, 3, 40, 70}},
      {{4, 8}, {8, 33}, {3, 33, 8}, {}},
      {{1, 3, 20, 96}, {1, 3, 96, 50}, {1, 3, 50, 128}, Shape{3, 20, 50}},  // wide-head tiles
      {{2, 3, 0}, {2, 0, 5}, {2, 5, 4}, {}},
      {{2, 3, 4}, {2, 4, 0}, {2, 0, 4}, {}},
  };
  for (auto const& c : cases) {
    Net n;
    Value q = n.input(c.q), k = n.input(c.kt), v = n.input(c.v);
    Value y = c.mask ? n.op(FusedAttention{0.125f}, {q, k, v, n.input(*c.mask)}) : n.op(FusedAttention{0.125f}, {q, k, v});
    Graph<> g = n.done({y});
    expect_matches_reference(g, random_inputs(g), fp32_math, fp32, "FusedAttention q " + c.q.to_string() + " v " + c.v.to_string());
  }
}

TEST(CudaFusedOps, FusedAttentionWithACausalMask) {
  AUTOGRAPH_REQUIRE_GPU();
  Net n;
  Shape ms{70, 70};
  std::vector<float> causal(static_cast<std::size_t>(ms.numel()));
  for (std::int64_t i = 0; i < 70; ++i)
    for (std::int64_t j = 0; j < 70; ++j) causal[static_cast<std::size_t>(i * 70 + j)] = j <= i ? 0.f : -std::numeric_limits<float>::infinity();
  Value mask{n.g.add(Weight{{ms}, Tensor(ms, causal).storage(), 1}, {}, "causal"), 0};
  Value y = n.op(FusedAttention{0.25f}, {n.input({2, 70, 32}), n.input({2, 32, 70}), n.input({2, 70, 32}), mask});
  Graph<> g = n.done({y});
  expect_matches_reference(g, random_inputs(g), fp32_math, fp32, "FusedAttention, causal mask");
}

TEST(CudaFusedOps, AddLayerNorm) {
  AUTOGRAPH_REQUIRE_GPU();
  for (bool keep : {false, true})
    for (auto [x, b] : {std::pair{Shape{1, 197, 768}, Shape{1, 197, 768}}, std::pair{Shape{2, 7, 64}, Shape{1, 7, 64}},
                        std::pair{Shape{2, 9000}, Shape{9000}}}) {  // the last row is longer than the shared-memory cache
      Net n;
      std::int64_t len = x[x.rank() - 1];
      Value y = n.op(AddLayerNorm{-1, 1e-6f, keep}, {n.input(x), n.input(b), n.weight({len}), n.weight({len})});
      std::vector<Value> outs{y};
      if (keep) outs.push_back(Value{y.node, 1});
      Graph<> g = n.done(outs);
      expect_matches_reference(g, random_inputs(g), fp32_math, fp32, "AddLayerNorm " + x.to_string() + " + " + b.to_string() + (keep ? " +sum" : ""));
    }
}

TEST(CudaFusedOps, LinearWithBiasAndGelu) {
  AUTOGRAPH_REQUIRE_GPU();
  Net n;
  Value y = n.op(MatMul{Activation::gelu}, {n.input({1, 197, 768}), n.weight({768, 3072}, -0.05f, 0.05f), n.weight({3072})});
  Graph<> g = n.done({y});
  expect_matches_reference(g, random_inputs(g), fp32_gemm, fp32, "MatMul + bias + GELU");
}

}  // namespace
}  // namespace autograph::cuda
