// The fused operators' reference kernels against hand-computed values and against the unfused
// subgraphs they replace, kernel by kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "autograph/runtime/cpu/attention.hpp"
#include "autograph/runtime/cpu/elementwise.hpp"
#include "autograph/runtime/cpu/matmul.hpp"
#include "autograph/runtime/cpu/normalization.hpp"
#include "autograph/runtime/cpu/softmax.hpp"
#include "autograph/runtime/cpu/unary.hpp"
#include "kernel_testing.hpp"

namespace autograph {
namespace {

using testing::run1;
using testing::run_kernel;
using testing::tensor_near;

/// max |a - b| / max |a|: the normwise error compare_outputs.hpp judges graphs by.
double normwise(Tensor const& a, Tensor const& b) {
  EXPECT_EQ(a.shape(), b.shape());
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.data().size(); ++i) {
    diff = std::max(diff, static_cast<double>(std::fabs(a.data()[i] - b.data()[i])));
    scale = std::max(scale, static_cast<double>(std::fabs(a.data()[i])));
  }
  return diff / scale;
}

TEST(FusedAttentionKernel, OneQueryTwoKeys) {
  // q = (1, 0), keys (1, 0) and (0, 1): scores (1, 0), scale 2 -> (2, 0); mask (0, -2) -> (2, -2);
  // p = (e^4, 1) / (e^4 + 1); v rows (10, 0) and (0, 10): out = 10 p.
  Tensor q({1, 2}, {1, 0}), kt({2, 2}, {1, 0, 0, 1}), v({2, 2}, {10, 0, 0, 10}), mask({2}, {0, -2});
  double p0 = std::exp(4.0) / (std::exp(4.0) + 1);
  EXPECT_TRUE(tensor_near(run1(FusedAttention{2.f}, {q, kt, v, mask}), {1, 2},
                          {static_cast<float>(10 * p0), static_cast<float>(10 * (1 - p0))}));
  double u0 = std::exp(2.0) / (std::exp(2.0) + 1);  // no mask: scores (2, 0)
  EXPECT_TRUE(tensor_near(run1(FusedAttention{2.f}, {q, kt, v}), {1, 2}, {static_cast<float>(10 * u0), static_cast<float>(10 * (1 - u0))}));
}

/// The unfused subgraph: MatMul -> Scale -> [Add mask] -> Softmax -> MatMul.
Tensor unfused_attention(float scale, std::vector<Tensor> const& in) {
  Tensor s = run1(Scale{scale, 0.f}, {run1(MatMul{}, {in[0], in[1]})});
  if (in.size() == 4) s = run1(Add{}, {s, in[3]});
  return run1(MatMul{}, {run1(Softmax{-1}, {s}), in[2]});
}

TEST(FusedAttentionKernel, MatchesTheUnfusedSubgraph) {
  struct Case {
    Shape q, kt, v, mask;
  };
  Case cases[] = {
      {{1, 12, 9, 64}, {1, 12, 64, 9}, {1, 12, 9, 64}, {}},        // ViT's heads, few tokens
      {{2, 3, 5, 8}, {2, 1, 8, 7}, {1, 7, 4}, {2, 1, 1, 7}},        // broadcast batches, a padding mask
      {{4, 6, 8}, {4, 8, 6}, {4, 6, 8}, {6, 6}},                    // a causal-style [Tq, Tk] mask
  };
  std::uint64_t seed = 1;
  for (auto const& c : cases) {
    std::vector<Tensor> in{Tensor::random(c.q, seed++, -2, 2), Tensor::random(c.kt, seed++, -2, 2), Tensor::random(c.v, seed++)};
    if (c.mask.rank() > 0) in.push_back(Tensor::random(c.mask, seed++, -3, 0));
    EXPECT_LE(normwise(unfused_attention(0.125f, in), run1(FusedAttention{0.125f}, in)), 1e-6) << c.q.to_string();
  }
}

TEST(AddLayerNormKernel, MatchesAddThenLayerNormAndKeepsTheSum) {
  Tensor a = Tensor::random({2, 5, 8}, 1, -3, 3), b = Tensor::random({1, 5, 8}, 2), gamma = Tensor::random({8}, 3), beta = Tensor::random({8}, 4);
  Tensor sum = run1(Add{}, {a, b});
  Tensor y = run1(LayerNorm{-1, 1e-6f}, {sum, gamma, beta});
  auto fused = run_kernel(AddLayerNorm{-1, 1e-6f, true}, {a, b, gamma, beta});
  ASSERT_EQ(fused.size(), 2u);
  EXPECT_EQ(normwise(y, fused[0]), 0.0);  // the same arithmetic in the same order
  EXPECT_EQ(normwise(sum, fused[1]), 0.0);
  EXPECT_EQ(run_kernel(AddLayerNorm{-1, 1e-6f, false}, {a, b, gamma, beta}).size(), 1u);
}

TEST(MatMulKernel, BiasPerColumnThenGelu) {
  // a = [[1, 2]], b = I: a b = (1, 2); + bias (0.5, -3) = (1.5, -1); GELU of each.
  Tensor a({1, 2}, {1, 2}), eye({2, 2}, {1, 0, 0, 1}), bias({2}, {0.5f, -3});
  auto gelu = [](double x) { return static_cast<float>(0.5 * x * (1 + std::erf(x / std::sqrt(2.0)))); };
  EXPECT_TRUE(tensor_near(run1(MatMul{Activation::gelu}, {a, eye, bias}), {1, 2}, {gelu(1.5), gelu(-1)}));
  EXPECT_TRUE(tensor_near(run1(MatMul{}, {a, eye, bias}), {1, 2}, {1.5f, -1}));
  // a batch of 2 matrices [2, 2] times one weight: the bias is per column of every row
  Tensor a3({2, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2});
  EXPECT_TRUE(tensor_near(run1(MatMul{}, {a3, eye, bias}), {2, 2, 2}, {1.5f, -3, 0.5f, -2, 2.5f, -3, 0.5f, -1}));
}

}  // namespace
}  // namespace autograph
