// Conv2DEpilogue and MatMulEpilogue: shape inference, FLOPs and errors against hand-computed
// cases (ResNet-50's last block at DETR's 800 x 1333: a 1x1 conv 512 -> 2048 over 25 x 42).
#include <autograph/ops/builtin.hpp>
#include <gtest/gtest.h>

#include "shape_checks.hpp"

using namespace autograph;

namespace {
using autograph::testing::d;
using autograph::testing::expect_error;

Conv2DEpilogue residual_relu(bool bias) {
  return Conv2DEpilogue::of(Conv2D{}, bias, {EpilogueStep::add(), EpilogueStep::activation(Activation::relu)});
}
}  // namespace

static_assert(BuiltinOps::contains<Conv2DEpilogue> && BuiltinOps::contains<MatMulEpilogue>);
static_assert(Conv2DEpilogue::name == "Conv2DEpilogue" && MatMulEpilogue::name == "MatMulEpilogue");

TEST(Epilogue, OutputIsTheProducers) {
  std::vector<TensorDesc> in{d({1, 512, 25, 42}), d({2048, 512, 1, 1}), d({2048}), d({1, 2048, 25, 42})};
  auto out = AnyOp{residual_relu(true)}.infer(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{1, 2048, 25, 42}));
  auto mm = MatMulEpilogue::of(MatMul{Activation::gelu}, false, {EpilogueStep::add(), EpilogueStep::affine(0.5f, 1.f)});
  std::vector<TensorDesc> mm_in{d({2, 7, 8}), d({8, 3}), d({2, 7, 3})};
  EXPECT_EQ(AnyOp{mm}.infer(mm_in).at(0).shape, (Shape{2, 7, 3}));
}

TEST(Epilogue, FlopsAreTheProducersPlusOnePerElementPerStep) {
  std::vector<TensorDesc> in{d({1, 512, 25, 42}), d({2048, 512, 1, 1}), d({2048}), d({1, 2048, 25, 42})};
  std::vector<TensorDesc> out{d({1, 2048, 25, 42})};
  double y = 2048.0 * 25 * 42;
  EXPECT_DOUBLE_EQ(AnyOp{residual_relu(true)}.flops(in, out), 2 * y * 512 + 2 * y);
  auto scaled = Conv2DEpilogue::of(Conv2D{}, true, {EpilogueStep::add(), EpilogueStep::affine(2.f, 1.f)});
  EXPECT_DOUBLE_EQ(AnyOp{scaled}.flops(in, out), 2 * y * 512 + 3 * y);  // a scale with a shift: two
}

TEST(Epilogue, EqualityAndHashSeeTheChain) {
  EXPECT_EQ(AnyOp{residual_relu(true)}, AnyOp{residual_relu(true)});
  EXPECT_NE(AnyOp{residual_relu(true)}.hash(), AnyOp{residual_relu(false)}.hash());
  auto tanh = Conv2DEpilogue::of(Conv2D{}, true, {EpilogueStep::add(), EpilogueStep::activation(Activation::tanh)});
  EXPECT_NE(AnyOp{residual_relu(true)}.hash(), AnyOp{tanh}.hash());
  EXPECT_EQ(residual_relu(true).attributes(), "s1,1 p0,0,0,0 +r relu");
}

TEST(Epilogue, Errors) {
  std::vector<TensorDesc> x{d({1, 8, 5, 5}), d({4, 8, 3, 3}), d({4})};
  // the operand broadcasts (a per-channel bias is the producer's, not a step's)
  auto in = x;
  in.push_back(d({1, 4, 1, 1}));
  expect_error(residual_relu(true), in, "Conv2DEpilogue: input 3 (an operand) must have the output's shape [1,4,3,3], got [1,4,1,1]");
  // an operand missing
  expect_error(residual_relu(true), x, "the producer takes 3 inputs and the chain 1 operands, got 3 inputs");
  // the producer's own error, named as the epilogue's
  in = {d({1, 6, 5, 5}), d({4, 8, 3, 3}), d({1, 4, 3, 3})};
  expect_error(residual_relu(false), in, "Conv2DEpilogue (its producer): Conv2D");
  expect_error(Conv2DEpilogue{}, {d({1, 8, 5, 5}), d({4, 8, 3, 3}), d({1, 4, 3, 3})}, "an empty chain");
  in = {d({1, 8, 5, 5}), d({4, 8, 3, 3}), d({1, 4, 3, 3}, DType::float16)};
  expect_error(residual_relu(false), in, "input 2 (an operand) is f16");
  Conv2DEpilogue full = residual_relu(false);
  full.append(EpilogueStep::mul());
  full.append(EpilogueStep::mul());
  EXPECT_THROW(full.append(EpilogueStep::mul()), Error);
}
