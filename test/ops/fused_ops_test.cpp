// Shape inference, FLOPs, bytes and errors of the fused transformer operators (FusedAttention,
// AddLayerNorm, MatMul's bias and GELU), against hand-computed cases.
#include <autograph/ops/builtin.hpp>
#include <gtest/gtest.h>

#include "shape_checks.hpp"

using namespace autograph;

namespace {
using autograph::testing::d;
using autograph::testing::infer;
using autograph::testing::expect_error;
}  // namespace

static_assert(BuiltinOps::contains<FusedAttention> && BuiltinOps::contains<AddLayerNorm>);

TEST(FusedAttention, OutputShape) {
  // ViT-B/16's heads: q [1, 12, 197, 64], kT [1, 12, 64, 197], v [1, 12, 197, 64]
  EXPECT_EQ(infer(FusedAttention{0.125f}, {d({1, 12, 197, 64}), d({1, 12, 64, 197}), d({1, 12, 197, 64})}).at(0).shape, (Shape{1, 12, 197, 64}));
  // Tq != Tk, D != Dv, a key/value batch broadcast over the queries' heads, a mask [B, 1, 1, Tk]
  auto out = infer(FusedAttention{}, {d({2, 4, 5, 8}), d({2, 1, 8, 7}), d({1, 7, 3}), d({2, 1, 1, 7})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{2, 4, 5, 3}));
}

TEST(FusedAttention, Errors) {
  expect_error(FusedAttention{}, {d({5, 8}), d({6, 7}), d({7, 3})}, "input 1 (kT) must be [..., D, Tk] with q's D = 8");
  expect_error(FusedAttention{}, {d({5, 8}), d({8, 7}), d({6, 3})}, "input 2 (v) must be [..., Tk, Dv] with kT's Tk = 7");
  expect_error(FusedAttention{}, {d({8}), d({8, 7}), d({7, 3})}, "input 0 (q) must be at least 2-D, got [8]");
  expect_error(FusedAttention{}, {d({2, 5, 8}), d({3, 8, 7}), d({7, 3})}, "batch dimensions of q and kT do not broadcast");
  // A mask that would enlarge the scores [5, 7] is not an additive mask of them.
  expect_error(FusedAttention{}, {d({5, 8}), d({8, 7}), d({7, 3}), d({2, 5, 7})}, "input 3 (mask) [2,5,7] must broadcast to the scores [5,7]");
  expect_error(FusedAttention{}, {d({5, 8}), d({8, 7}), d({7, 3}), d({4})}, "input 3 (mask)");
  expect_error(FusedAttention{}, {d({5, 8}), d({8, 7})}, "takes 3 to 4 inputs, got 2");
  expect_error(FusedAttention{}, {d({5, 8}), d({8, 7}, DType::float16), d({7, 3})}, "input 1 is f16 but input 0 is f32");
}

TEST(FusedAttention, FlopsAndBytesNeverCountTheScores) {
  // 2 score matrices [5, 7] over D = 8, outputs [5, 3] over Tk = 7:
  // MACs 2*5*7*8 + 2*5*3*7 = 560 + 210 = 770; per score 1 (scale) + 1 (mask) + 5 (softmax).
  FusedAttention op{0.5f};
  std::vector<TensorDesc> in{d({2, 5, 8}), d({2, 8, 7}), d({2, 7, 3}), d({5, 7})};
  auto out = op.infer(in);
  EXPECT_DOUBLE_EQ(op.macs(in, out), 770);
  EXPECT_DOUBLE_EQ(op.flops(in, out), 2 * 770 + 7.0 * 70);
  // bytes: q 80 + kT 112 + v 42 + mask 35 + out 30 = 299 floats, no [2, 5, 7] score tensor
  EXPECT_DOUBLE_EQ(AnyOp{op}.bytes(in, out), 299.0 * 4);
}

TEST(AddLayerNorm, OutputsAndErrors) {
  auto one = infer(AddLayerNorm{-1, 1e-6f, false}, {d({1, 197, 768}), d({1, 197, 768}), d({768}), d({768})});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].shape, (Shape{1, 197, 768}));
  // keep_sum: the sum as output 1; the position embedding [1, T, C] broadcasts over the batch
  auto two = infer(AddLayerNorm{-1, 1e-6f, true}, {d({4, 197, 768}), d({1, 197, 768}), d({768}), d({768})});
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].shape, (Shape{4, 197, 768}));
  EXPECT_EQ(two[1].shape, (Shape{4, 197, 768}));
  expect_error(AddLayerNorm{}, {d({2, 8}), d({3, 8}), d({8}), d({8})}, "input 0 (a) [2,8] and input 1 (b) [3,8] do not broadcast");
  expect_error(AddLayerNorm{}, {d({2, 8}), d({2, 8}), d({4}), d({8})}, "input 1 (gamma) must be [8]");
  expect_error(AddLayerNorm{}, {d({2, 8}), d({2, 8}), d({8})}, "takes 4 inputs, got 3");
}

TEST(AddLayerNorm, FlopsAndBytes) {
  AddLayerNorm op{-1, 1e-5f, true};
  std::vector<TensorDesc> in{d({2, 8}), d({2, 8}), d({8}), d({8})};
  auto out = op.infer(in);
  EXPECT_DOUBLE_EQ(op.flops(in, out), 9.0 * 16);
  // a, b, gamma, beta read; y and the kept sum written: 16 + 16 + 8 + 8 + 16 + 16 floats
  EXPECT_DOUBLE_EQ(AnyOp{op}.bytes(in, out), 80.0 * 4);
}

TEST(MatMul, BiasAndGelu) {
  MatMul op{Activation::gelu};
  std::vector<TensorDesc> in{d({2, 3, 4}), d({4, 5}), d({5})};
  auto out = infer(op, in);
  EXPECT_EQ(out.at(0).shape, (Shape{2, 3, 5}));
  // 30 outputs x 4 MACs, x2; the epilogue is not counted (as Conv2D's)
  EXPECT_DOUBLE_EQ(op.flops(in, out), 2 * 120);
  expect_error(MatMul{}, {d({2, 3, 4}), d({4, 5}), d({3})}, "input 2 (bias) must be [5], one per output column, got [3]");
  expect_error(MatMul{}, {d({2, 3, 4}), d({4, 5}), d({1, 5})}, "input 2 (bias) must be [5]");
  EXPECT_EQ(to_string(Activation::gelu), "gelu");
  EXPECT_NEAR(apply(Activation::gelu, 1.f), 0.8413447f, 1e-6f);  // x Phi(x) at 1
}
