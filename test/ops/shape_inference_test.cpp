// Shape inference, FLOPs and errors of every built-in operator, against hand-computed cases.
#include <autograph/ops/builtin.hpp>
#include <gtest/gtest.h>

#include "shape_checks.hpp"

using namespace autograph;

namespace {
using autograph::testing::d;
using autograph::testing::infer;
using autograph::testing::expect_error;
template <class Op>
Shape out0(Op const& op, std::vector<TensorDesc> in) {
  return infer(op, std::move(in)).at(0).shape;
}
template <class Op>
double flops(Op const& op, std::vector<TensorDesc> in) {
  auto out = op.infer(in);
  return op.flops(in, out);
}
}  // namespace

static_assert(Operator<Conv2D> && Operator<MatMul> && Operator<Add> && Operator<Relu> && Operator<Split> && Operator<Weight>);
static_assert(is_elementwise<Add> && is_elementwise<Relu> && !is_elementwise<Conv2D>);
static_assert(is_source_op<Input> && is_source_op<Weight> && !is_source_op<Conv2D>);

TEST(Conv2D, OutputShape) {
  // 224 + 3 + 3 = 230; (230 - 7) / 2 + 1 = 112
  EXPECT_EQ(out0(Conv2D{{2, 2}, {3, 3, 3, 3}}, {d({1, 3, 224, 224}), d({64, 3, 7, 7})}), (Shape{1, 64, 112, 112}));
  // asymmetric padding: H: 5+1+0 = 6, (6-3)/1+1 = 4; W: 5+0+2 = 7 -> 5
  EXPECT_EQ(out0(Conv2D{{1, 1}, {1, 0, 0, 2}}, {d({1, 2, 5, 5}), d({4, 2, 3, 3})}), (Shape{1, 4, 4, 5}));
  // dilation 2: effective kernel 5; 9 - 5 + 1 = 5
  EXPECT_EQ(out0(Conv2D{.dilation = {2, 2}}, {d({1, 2, 9, 9}), d({4, 2, 3, 3})}), (Shape{1, 4, 5, 5}));
  // grouped and depthwise
  EXPECT_EQ(out0(Conv2D{.pad = {1, 1, 1, 1}, .groups = 32}, {d({1, 128, 8, 8}), d({128, 4, 3, 3})}), (Shape{1, 128, 8, 8}));
  EXPECT_EQ(out0(Conv2D{.groups = 16}, {d({2, 16, 4, 4}), d({16, 1, 3, 3}), d({16})}), (Shape{2, 16, 2, 2}));
}

TEST(Conv2D, Flops) {
  // out 1x4x4x5 = 80 elements, each 2*3*3 = 18 MACs -> 1440 MACs, 2880 FLOPs
  Conv2D c{{1, 1}, {1, 0, 0, 2}};
  std::vector<TensorDesc> in{d({1, 2, 5, 5}), d({4, 2, 3, 3})};
  auto out = c.infer(in);
  EXPECT_DOUBLE_EQ(c.macs(in, out), 1440);
  EXPECT_DOUBLE_EQ(c.flops(in, out), 2880);
}

TEST(Conv2D, Errors) {
  expect_error(Conv2D{}, {d({1, 3, 8, 8})}, "takes 2 to 3 inputs, got 1");
  expect_error(Conv2D{}, {d({1, 3, 8}), d({4, 3, 3, 3})}, "input 0 (x) must be 4-D");
  expect_error(Conv2D{}, {d({1, 3, 8, 8}), d({4, 2, 3, 3})}, "weight expects 2 input channels");
  expect_error(Conv2D{.groups = 2}, {d({1, 3, 8, 8}), d({4, 1, 3, 3})}, "not divisible by groups");
  expect_error(Conv2D{}, {d({1, 3, 2, 2}), d({4, 3, 3, 3})}, "kernel larger than the padded input");
  expect_error(Conv2D{}, {d({1, 3, 8, 8}), d({4, 3, 3, 3}), d({5})}, "bias must be [4]");
  expect_error(Conv2D{.stride = {0, 1}}, {d({1, 3, 8, 8}), d({4, 3, 3, 3})}, "stride and dilation must be >= 1");
  expect_error(Conv2D{}, {d({1, 3, 8, 8}), d({4, 3, 3, 3}, DType::float16)}, "input 1 is f16 but input 0 is f32");
}

TEST(Pool2D, Shapes) {
  // (147 - 3)/2 + 1 = 73
  EXPECT_EQ(out0(Pool2D{PoolKind::max, {3, 3}, {2, 2}}, {d({1, 64, 147, 147})}), (Shape{1, 64, 73, 73}));
  // ceil mode (SqueezeNet): (111 - 3 + 1)/2 + 1 = 55
  EXPECT_EQ(out0(Pool2D{PoolKind::max, {3, 3}, {2, 2}, {0, 0, 0, 0}, false, false, true}, {d({1, 64, 111, 111})}), (Shape{1, 64, 55, 55}));
  // ceil mode where the last window would start in the padding: 5 with pad 1, k 2, s 2:
  // floor: (7-2)/2+1 = 3; ceil: (7-2+1)/2+1 = 4, but window 3 starts at 6 >= 5 + 1 -> 3
  EXPECT_EQ(out0(Pool2D{PoolKind::avg, {2, 2}, {2, 2}, {1, 1, 1, 1}, false, false, true}, {d({1, 1, 5, 5})}), (Shape{1, 1, 3, 3}));
  EXPECT_EQ(out0(Pool2D{.kind = PoolKind::avg, .global = true}, {d({2, 8, 7, 7})}), (Shape{2, 8, 1, 1}));
  expect_error(Pool2D{PoolKind::max, {3, 3}, {1, 1}, {3, 0, 0, 0}}, {d({1, 1, 8, 8})}, "padding must be smaller than the kernel");
  expect_error(Pool2D{PoolKind::max, {9, 9}}, {d({1, 1, 8, 8})}, "larger than the padded input");
  expect_error(Pool2D{}, {d({1, 8, 8})}, "must be 4-D");
}

TEST(MatMul, BroadcastingAndErrors) {
  EXPECT_EQ(out0(MatMul{}, {d({2, 1, 3, 4}), d({5, 4, 2})}), (Shape{2, 5, 3, 2}));
  EXPECT_EQ(out0(MatMul{}, {d({16, 16, 64, 64}), d({16, 16, 64, 64})}), (Shape{16, 16, 64, 64}));
  // 3x4 @ 4x2: 6 outputs x 4 MACs
  EXPECT_DOUBLE_EQ(flops(MatMul{}, {d({3, 4}), d({4, 2})}), 48);
  expect_error(MatMul{}, {d({3, 4}), d({5, 2})}, "inner dimensions 4 and 5 differ");
  expect_error(MatMul{}, {d({4}), d({4, 2})}, "rank >= 2");
  expect_error(MatMul{}, {d({2, 3, 4}), d({3, 4, 2})}, "batch");
}

TEST(Elementwise, BroadcastAndUnary) {
  EXPECT_EQ(out0(Add{}, {d({3, 1}), d({1, 4})}), (Shape{3, 4}));
  EXPECT_EQ(out0(Mul{}, {d({1, 64, 8, 8}), d({64, 1, 1})}), (Shape{1, 64, 8, 8}));
  expect_error(Sub{}, {d({2, 3}), d({4})}, "Sub: shapes [2,3] and [4] do not broadcast");
  expect_error(Div{}, {d({2, 3})}, "Div takes 2 inputs, got 1");
  EXPECT_EQ(out0(Relu{}, {d({2, 5})}), (Shape{2, 5}));
  EXPECT_EQ(out0(Scale{2.f, 1.f}, {d({7})}), (Shape{7}));
  expect_error(Clip{1.f, 0.f}, {d({2})}, "Clip: min");
  EXPECT_DOUBLE_EQ(flops(Add{}, {d({3, 1}), d({1, 4})}), 12);
  EXPECT_NE((Clip{0.f, 6.f}), (Clip{0.f, 1.f}));
  EXPECT_NE(op_hash(Clip{0.f, 6.f}), op_hash(Clip{0.f, 1.f}));
  EXPECT_NE(op_hash(Add{}), op_hash(Mul{}));
}

TEST(Normalization, BatchNormLayerNormSoftmax) {
  EXPECT_EQ(out0(BatchNorm{}, {d({1, 4, 3, 3}), d({4}), d({4}), d({4}), d({4})}), (Shape{1, 4, 3, 3}));
  expect_error(BatchNorm{}, {d({1, 4, 3, 3}), d({4}), d({4}), d({3}), d({4})}, "input 3 (mean) must be [4], got [3]");
  EXPECT_EQ(out0(LayerNorm{-1}, {d({16, 64, 1024}), d({1024}), d({1024})}), (Shape{16, 64, 1024}));
  EXPECT_EQ(out0(LayerNorm{1}, {d({2, 3, 4}), d({3, 4}), d({3, 4})}), (Shape{2, 3, 4}));
  expect_error(LayerNorm{-1}, {d({2, 8}), d({4}), d({8})}, "input 1 (gamma) must be [8]");
  EXPECT_EQ(out0(Softmax{1}, {d({2, 3, 4})}), (Shape{2, 3, 4}));
  expect_error(Softmax{3}, {d({2, 3, 4})}, "axis 3 is out of range");
}

TEST(Layout, ConcatSplit) {
  EXPECT_EQ(out0(Concat{1}, {d({1, 64, 8, 8}), d({1, 32, 8, 8}), d({1, 96, 8, 8})}), (Shape{1, 192, 8, 8}));
  EXPECT_EQ(out0(Concat{-1}, {d({2, 3}), d({2, 5})}), (Shape{2, 8}));
  expect_error(Concat{1}, {d({1, 64, 8, 8}), d({1, 32, 4, 8})}, "input 1 [1,32,4,8] does not match input 0 [1,64,8,8]");
  auto parts = infer(Split{1, {16, 48}}, {d({1, 64, 8, 8})});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].shape, (Shape{1, 16, 8, 8}));
  EXPECT_EQ(parts[1].shape, (Shape{1, 48, 8, 8}));
  expect_error(Split{1, {16, 16}}, {d({1, 64, 8, 8})}, "sizes [16,16] do not add up to 64");
  expect_error(Split{1, {}}, {d({1, 64})}, "no sizes");
}

TEST(Layout, ReshapeTransposeSlicePad) {
  EXPECT_EQ(out0(Reshape{{16, 64, 16, 64}}, {d({16, 64, 1024})}), (Shape{16, 64, 16, 64}));
  EXPECT_EQ(out0(Reshape{{-1, 1024}}, {d({16, 64, 1024})}), (Shape{1024, 1024}));
  expect_error(Reshape{{-1, -1}}, {d({4})}, "more than one -1");
  expect_error(Reshape{{3, 3}}, {d({4, 2})}, "element counts differ");
  EXPECT_EQ(out0(Transpose{{0, 2, 1, 3}}, {d({16, 64, 16, 64})}), (Shape{16, 16, 64, 64}));
  expect_error(Transpose{{0, 0, 1}}, {d({1, 2, 3})}, "is not a permutation");
  expect_error(Transpose{{0, 1}}, {d({1, 2, 3})}, "wrong length");
  // [10]: start -4 -> 6, end 100 clamps to 10, step 2: 6, 8 -> 2 elements
  EXPECT_EQ(out0(Slice{{0}, {-4}, {100}, {2}}, {d({10})}), (Shape{2}));
  EXPECT_EQ(out0(Slice{{1}, {0}, {1}, {}}, {d({1, 197, 768})}), (Shape{1, 1, 768}));
  expect_error(Slice{{0}, {0}, {4}, {0}}, {d({10})}, "step must be > 0");
  EXPECT_EQ(out0(Pad{{0, 0, 1, 2, 0, 0, 3, 4}}, {d({1, 1, 5, 5})}), (Shape{1, 1, 9, 11}));
  expect_error(Pad{{1, 1}}, {d({1, 1, 5, 5})}, "needs 8 pads, got 2");
}

TEST(Layout, EnlargeReduceIdentity) {
  EXPECT_EQ(out0(Enlarge{{3, 3}}, {d({64, 32, 1, 3})}), (Shape{64, 32, 3, 3}));
  expect_error(Enlarge{{3, 3}}, {d({64, 32, 2, 2})}, "differ by an even amount");
  expect_error(Enlarge{{3, 3}}, {d({64, 32, 5, 5})}, "at least as large");
  EXPECT_EQ(out0(Reduce{ReduceKind::mean, {2, 3}, true}, {d({1, 8, 7, 7})}), (Shape{1, 8, 1, 1}));
  EXPECT_EQ(out0(Reduce{ReduceKind::sum, {-1}, false}, {d({2, 3, 4})}), (Shape{2, 3}));
  EXPECT_EQ(out0(Reduce{ReduceKind::sum, {}, false}, {d({2, 3, 4})}), (Shape{}));
  expect_error(Reduce{ReduceKind::sum, {1, -2}, false}, {d({2, 3, 4})}, "listed twice");
  EXPECT_EQ(out0(Identity{}, {d({2, 3})}), (Shape{2, 3}));
}

TEST(Sources, InputAndWeight) {
  EXPECT_EQ(out0(Input{d({1, 3, 4, 4}), "x"}, {}), (Shape{1, 3, 4, 4}));
  auto data = std::make_shared<std::vector<float> const>(std::vector<float>{1, 2, 3});
  EXPECT_EQ(out0(Weight{d({3}), data}, {}), (Shape{3}));
  expect_error(Weight{d({4}), data}, {}, "holds 3 values, expected 4");
  expect_error(Input{d({1}), "x"}, {d({1})}, "Input takes 0 inputs, got 1");
  // Weights are equal only when they share storage (or both have none and the same id).
  EXPECT_EQ((Weight{d({3}), data}), (Weight{d({3}), data}));
  EXPECT_NE((Weight{d({3}), data}), (Weight{d({3}), std::make_shared<std::vector<float> const>(*data)}));
  EXPECT_NE((Weight{d({3}), nullptr, 1}), (Weight{d({3}), nullptr, 2}));
  // Reshape moves no data; sources are not kernels.
  std::vector<TensorDesc> in{d({4, 4})};
  EXPECT_DOUBLE_EQ(op_bytes(Reshape{{16}}, in, in), 0);
  EXPECT_DOUBLE_EQ(op_bytes(Input{d({4, 4}), "x"}, {}, in), 0);
  EXPECT_DOUBLE_EQ(op_bytes(Relu{}, in, in), 128);
}

TEST(AnyOp, TypeTestsEqualityAndHash) {
  AnyOp a = Conv2D{.groups = 2}, b = Conv2D{.groups = 2}, c = Conv2D{.groups = 4}, r = Relu{};
  EXPECT_TRUE(a.is<Conv2D>());
  EXPECT_FALSE(a.is<Relu>());
  EXPECT_EQ(a.get_if<Conv2D>()->groups, 2);
  EXPECT_EQ(a.get_if<Relu>(), nullptr);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, r);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_NE(a.hash(), c.hash());
  EXPECT_EQ(a.name(), "Conv2D");
  EXPECT_EQ(a.type_id(), AnyOp::type_id_of<Conv2D>());
  EXPECT_TRUE(BuiltinOps::holds(a));
  int seen = visit_op<BuiltinOps>(r, [](auto const& op) { return static_cast<int>(std::decay_t<decltype(op)>::arity.max); });
  EXPECT_EQ(seen, 1);
}

TEST(Pool2D, AnEmptyBatchIsFineAnEmptyImageIsAnError) {
  EXPECT_EQ(out0(Pool2D{.kernel = {2, 2}, .stride = {2, 2}}, {d({0, 3, 8, 8})}), (Shape{0, 3, 4, 4}));
  EXPECT_EQ(out0(Pool2D{.global = true}, {d({2, 0, 8, 8})}), (Shape{2, 0, 1, 1}));
  // With padding the windows would fit, but they would hold padding only.
  expect_error(Pool2D{.kernel = {3, 3}, .pad = {2, 2, 2, 2}}, {d({1, 3, 0, 8})}, "cannot pool an image with no rows or columns");
  expect_error(Pool2D{.global = true}, {d({1, 3, 8, 0})}, "[1,3,8,0]");
}

TEST(ConvTranspose2D, AnEmptyImageIsNamedAsSuch) {
  EXPECT_EQ(out0(ConvTranspose2D{}, {d({0, 4, 5, 5}), d({4, 2, 3, 3})}), (Shape{0, 2, 7, 7}));
  expect_error(ConvTranspose2D{}, {d({1, 4, 0, 5}), d({4, 2, 3, 3})}, "no rows or columns");
}
