// Conv2DEpilogue and MatMulEpilogue on the CPU runtime: one oneDNN primitive whose post-ops run
// the chain (binary add/mul reading the operands, eltwise for activations and scales), against
// the reference kernels (normwise <= 1e-4 as issue 18 asks; these agree to float rounding), in
// plain layouts (the harness) and channels-last between convolutions (a ResNet block, lowered).
#include <autograph/cpu/executable.hpp>
#include <autograph/cpu/lower.hpp>
#include <autograph/graph/builder.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/runtime/reference_executor.hpp>
#include <autograph/schedule/kernel_dag.hpp>
#include <autograph/schedule/sequential.hpp>

#include "cpu/kernel_harness.hpp"
#include "matches_reference.hpp"

namespace autograph::cpu {
namespace {

using namespace testing;

static_assert(HasCpuKernel<Conv2DEpilogue> && HasCpuKernel<MatMulEpilogue>);

EpilogueStep const add = EpilogueStep::add(), mul = EpilogueStep::mul();
EpilogueStep act(Activation a) { return EpilogueStep::activation(a); }

TEST(CpuEpilogue, ConvWithEveryKindOfStep) {
  Conv2D c{{1, 1}, {1, 1, 1, 1}};
  std::vector<Tensor> x{rnd({1, 8, 9, 7}, 1), rnd({16, 8, 3, 3}, 2), rnd({16}, 3)};
  auto with = [&](std::vector<Tensor> more) {
    auto in = x;
    in.insert(in.end(), more.begin(), more.end());
    return in;
  };
  Tensor r = rnd({1, 16, 9, 7}, 4, -2.f, 2.f), r2 = rnd({1, 16, 9, 7}, 5);
  expect_matches(Conv2DEpilogue::of(c, true, {add, act(Activation::relu)}), with({r}), {0, 1, 1, 0});  // ResNet's residual
  expect_matches(Conv2DEpilogue::of(c, true, {add, mul, EpilogueStep::affine(0.5f, -0.25f), act(Activation::tanh)}), with({r, r2}),
                 {0, 1, 1, 0, 0});
  Conv2D own = c;
  own.act = Activation::relu;  // the producer's activation comes before the chain
  expect_matches(Conv2DEpilogue::of(own, true, {add, act(Activation::sigmoid)}), with({r}), {0, 1, 1, 0});
  expect_matches(Conv2DEpilogue::of(Conv2D{{2, 2}}, false, {add}), {rnd({1, 8, 9, 7}, 6), rnd({4, 8, 1, 1}, 7), rnd({1, 4, 5, 4}, 8)},
                 {0, 1, 0});  // strided, no bias
}

TEST(CpuEpilogue, MatMulWithEveryKindOfStep) {
  std::vector<Tensor> lin{rnd({2, 5, 8}, 10), rnd({8, 6}, 11), rnd({6}, 12)};
  Tensor r = rnd({2, 5, 6}, 13, -2.f, 2.f);
  expect_matches(MatMulEpilogue::of(MatMul{}, true, {add}), {lin[0], lin[1], lin[2], r}, {0, 1, 1, 0});  // a linear layer + residual
  expect_matches(MatMulEpilogue::of(MatMul{Activation::gelu}, true, {add, EpilogueStep::affine(2.f, 0.f), act(Activation::relu)}),
                 {lin[0], lin[1], lin[2], r}, {0, 1, 1, 0});
  expect_matches(MatMulEpilogue::of(MatMul{}, false, {mul, act(Activation::gelu)}), {rnd({3, 4, 5}, 14), rnd({3, 5, 2}, 15), rnd({3, 4, 2}, 16)});
}

/// relu(conv3(relu(conv1(x))) + x) with 1x1 and 3x3 convs, its residual fused: the values stay
/// channels-last between the convolutions and the operand is read in the output's layout.
TEST(CpuEpilogue, AResidualBlockChannelsLastGivesTheReference) {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 16, 12, 10});
  Value stem = b.conv2d(x, 32, {3, 3}, {.act = Activation::relu, .bias = true});  // gives the block its NHWC input
  Value y = b.conv2d(stem, 8, {1, 1}, {.act = Activation::relu, .bias = true});
  Value w = b.weight("w", {32, 8, 3, 3}), bias = b.weight("bias", {32}, WeightInit::uniform);
  Value out = b.add(Conv2DEpilogue::of(Conv2D{{1, 1}, Conv2D::same_pad(3, 3)}, true, {add, act(Activation::relu)}), {y, w, bias, stem});
  Value next = b.conv2d(out, 4, {1, 1});
  // A plain operand (a graph input) beside a channels-last output: reordered into its layout.
  Value residual = b.input("residual", {1, 4, 12, 10});
  Value w2 = b.weight("w2", {4, 4, 1, 1});
  Value mixed = b.add(Conv2DEpilogue::of(Conv2D{}, false, {add, act(Activation::relu)}), {next, w2, residual});
  Graph<> g = std::move(b).build({b.conv2d(mixed, 4, {1, 1})});
  fill_random_weights(g, 7);
  auto cg = lower(g);
  EXPECT_EQ(cg->layouts[cg->value(stem)], Layout::channels_last);
  EXPECT_EQ(cg->layouts[cg->value(out)], Layout::channels_last);
  EXPECT_EQ(cg->layouts[cg->value(residual)], Layout::plain);
  EXPECT_EQ(cg->layouts[cg->value(mixed)], Layout::channels_last);
  std::vector<Tensor> inputs{Tensor::random({1, 16, 12, 10}, 9), Tensor::random({1, 4, 12, 10}, 10)};
  CpuExecutable exe(cg, schedule::sequential(KernelDag(g)));
  EXPECT_TRUE(test::matches(exe.run(inputs), ReferenceExecutor<>().run(g, inputs), 1e-4));
  auto steps = exe.steps(out.node);
  ASSERT_FALSE(steps.empty());
  EXPECT_NE(steps.back().find("convolution with binary post-ops"), std::string::npos) << ::testing::PrintToString(steps);
  EXPECT_EQ(steps.back().find("(ref"), std::string::npos) << "oneDNN's reference kernel: " << steps.back();
  // All plain (as DPOF times a group alone, its inputs and outputs graph inputs and outputs).
  CpuExecutable plain(lower(g, {.channels_last = false}), schedule::sequential(KernelDag(g)));
  EXPECT_TRUE(test::matches(plain.run(inputs), ReferenceExecutor<>().run(g, inputs), 1e-4));
  steps = plain.steps(out.node);
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.back().find("(ref"), std::string::npos) << "oneDNN's reference kernel: " << ::testing::PrintToString(steps);
}

}  // namespace
}  // namespace autograph::cpu
