// Conv2D, ConvTranspose2D and MatMul on the CPU runtime against the reference kernels.
#include "cpu/kernel_harness.hpp"

namespace autograph::cpu {
namespace {

using namespace testing;

// ---- Conv2D ---------------------------------------------------------------------------------

/// The convolution computes the reference's outputs in either layout and in the measured choice.
template <class Op>
void expect_conv_matches(Op const& op, std::vector<Tensor> const& in, std::vector<char> const& constant = {}) {
  for (auto layout : {builtin::ConvLayout::plain, builtin::ConvLayout::blocked, builtin::ConvLayout::measured}) {
    SCOPED_TRACE(layout == builtin::ConvLayout::plain ? "plain layouts" : layout == builtin::ConvLayout::blocked ? "blocked layouts" : "measured");
    builtin::set_conv_layout(layout);
    expect_matches(op, in, constant);
  }
}

TEST(CpuConv2D, PlainWithBiasConstantAndComputedWeights) {
  std::vector<Tensor> in{rnd({2, 8, 9, 9}, 1), rnd({16, 8, 3, 3}, 2), rnd({16}, 3)};
  expect_conv_matches(conv({1, 1}, {1, 1, 1, 1}), in, {0, 1, 1});
  expect_conv_matches(conv({1, 1}, {1, 1, 1, 1}), in, {0, 0, 0});
}
TEST(CpuConv2D, StridedAsymmetricPaddingNoBias) {
  expect_conv_matches(conv({2, 2}, {0, 1, 2, 0}), {rnd({1, 3, 11, 10}, 4), rnd({5, 3, 3, 2}, 5)}, {0, 1});
}
TEST(CpuConv2D, PointwiseAndLargeKernel) {
  expect_conv_matches(conv({1, 1}, {0, 0, 0, 0}), {rnd({1, 32, 7, 7}, 6), rnd({24, 32, 1, 1}, 7)}, {0, 1});
  expect_conv_matches(conv({1, 1}, {3, 0, 3, 0}), {rnd({1, 4, 9, 8}, 6), rnd({4, 4, 7, 1}, 7)}, {0, 1});
}
TEST(CpuConv2D, Grouped) {
  expect_conv_matches(conv({1, 1}, {1, 1, 1, 1}, 4), {rnd({1, 16, 8, 8}, 8), rnd({8, 4, 3, 3}, 9), rnd({8}, 10)}, {0, 1, 1});
  expect_conv_matches(conv({1, 1}, {1, 1, 1, 1}, 4), {rnd({1, 16, 8, 8}, 8), rnd({8, 4, 3, 3}, 9), rnd({8}, 10)});
}
TEST(CpuConv2D, Depthwise) {
  expect_conv_matches(conv({1, 1}, {1, 1, 1, 1}, 32), {rnd({2, 32, 10, 10}, 11), rnd({32, 1, 3, 3}, 12)}, {0, 1});
  expect_conv_matches(conv({2, 2}, {2, 2, 2, 2}, 16), {rnd({1, 16, 13, 13}, 11), rnd({16, 1, 5, 5}, 12), rnd({16}, 13)}, {0, 1, 1});
}
TEST(CpuConv2D, Dilated) {
  expect_conv_matches(conv({1, 1}, {2, 2, 2, 2}, 1, {2, 2}), {rnd({1, 6, 12, 12}, 14), rnd({6, 6, 3, 3}, 15)}, {0, 1});
  expect_conv_matches(conv({1, 1}, {4, 2, 4, 2}, 8, {4, 2}), {rnd({1, 8, 12, 12}, 14), rnd({8, 1, 3, 3}, 15)}, {0, 1});
}
TEST(CpuConv2D, FusedActivations) {
  for (Activation act : {Activation::relu, Activation::sigmoid, Activation::tanh}) {
    expect_conv_matches(conv({1, 1}, {1, 1, 1, 1}, 1, {1, 1}, act), {rnd({1, 8, 6, 6}, 16), rnd({8, 8, 3, 3}, 17), rnd({8}, 18)}, {0, 1, 1});
    expect_conv_matches(conv({2, 2}, {1, 1, 1, 1}, 8, {1, 1}, act), {rnd({1, 8, 6, 6}, 16), rnd({8, 1, 3, 3}, 17), rnd({8}, 18)}, {0, 1, 1});
  }
}

// ---- ConvTranspose2D ------------------------------------------------------------------------

TEST(CpuConvTranspose2D, StridedPaddedGroupedWithOutputPadding) {
  expect_conv_matches(ConvTranspose2D{.stride = {2, 2}}, {rnd({1, 4, 5, 5}, 19), rnd({4, 6, 3, 3}, 20), rnd({6}, 21)}, {0, 1, 1});
  expect_conv_matches(ConvTranspose2D{.stride = {2, 2}, .pad = {1, 1, 1, 1}, .output_padding = {1, 1}}, {rnd({2, 4, 5, 4}, 22), rnd({4, 3, 3, 3}, 23)});
  // Output padding beyond the end padding: oneDNN sees negative end padding.
  expect_conv_matches(ConvTranspose2D{.stride = {3, 2}, .output_padding = {2, 1}}, {rnd({1, 3, 4, 5}, 22), rnd({3, 2, 2, 3}, 23), rnd({2}, 24)});
  expect_conv_matches(ConvTranspose2D{.stride = {1, 2}, .pad = {0, 1, 1, 0}, .dilation = {2, 1}, .groups = 2},
                 {rnd({1, 4, 6, 5}, 24), rnd({4, 3, 3, 2}, 25), rnd({6}, 26)}, {0, 1, 1});
}

TEST(CpuConv2D, ForcedLayouts) {
  std::vector<Tensor> in{rnd({1, 16, 8, 8}, 1), rnd({16, 16, 3, 3}, 2), rnd({16}, 3)};
  builtin::set_conv_layout(builtin::ConvLayout::plain);
  auto plain = prepare(conv({1, 1}, {1, 1, 1, 1}), in, {0, 1, 1});
  builtin::set_conv_layout(builtin::ConvLayout::blocked);
  auto blocked = prepare(conv({1, 1}, {1, 1, 1, 1}), in, {0, 1, 1});
  builtin::set_conv_layout(builtin::ConvLayout::measured);
  ASSERT_EQ(plain->prep.steps().size(), 1u);  // the constant weight reordered when bound, bias and activation in the primitive
  EXPECT_NE(plain->prep.steps()[0].what.find("oneDNN convolution"), std::string::npos);
  ASSERT_EQ(blocked->prep.steps().size(), 3u);  // x into the blocked layout, the convolution, y out of it
  EXPECT_NE(blocked->prep.steps()[0].what.find("oneDNN reorder"), std::string::npos);
  EXPECT_NE(blocked->prep.steps()[1].what.find("oneDNN convolution"), std::string::npos);
  EXPECT_NE(blocked->prep.steps()[2].what.find("oneDNN reorder"), std::string::npos);
}

// ---- MatMul ---------------------------------------------------------------------------------

TEST(CpuMatMul, PlainBatchedAndBroadcast) {
  expect_matches(MatMul{}, {rnd({7, 12}, 27), rnd({12, 5}, 28)}, {0, 1});
  expect_matches(MatMul{}, {rnd({7, 12}, 27), rnd({12, 5}, 28)});
  expect_matches(MatMul{}, {rnd({3, 4, 7, 12}, 29), rnd({12, 5}, 30)}, {0, 1});     // a linear layer over a batch
  expect_matches(MatMul{}, {rnd({2, 3, 7, 12}, 31), rnd({2, 3, 12, 5}, 32)});       // batched
  expect_matches(MatMul{}, {rnd({2, 1, 7, 12}, 33), rnd({3, 12, 5}, 34)});          // both broadcast
  expect_matches(MatMul{}, {rnd({7, 12}, 35), rnd({4, 12, 5}, 36)});                // a broadcast
}
// A linear layer over a batch runs as one [rows, K] @ [K, N] product: the same primitive and
// weight layout as the 2-D problem (oneDNN keeps a rank-3 weight plain), the same results.
TEST(CpuMatMul, LinearOverABatchRunsAsOneTwoDimensionalProduct) {
  auto steps = [](std::vector<Tensor> const& in, std::vector<char> constant) {
    auto node = prepare(MatMul{.act = Activation::relu}, in, std::move(constant));
    std::vector<std::string> names;
    for (auto const& s : node->prep.steps()) names.push_back(s.what);
    return names;
  };
  std::vector<Tensor> batched{rnd({2, 5, 64}, 40), rnd({64, 96}, 41), rnd({96}, 42)};
  std::vector<Tensor> flat{rnd({10, 64}, 40), rnd({64, 96}, 41), rnd({96}, 42)};
  EXPECT_EQ(steps(batched, {0, 1, 1}), steps(flat, {0, 1, 1}));
  expect_matches(MatMul{.act = Activation::relu}, batched, {0, 1, 1});
  expect_matches(MatMul{}, {rnd({3, 1, 4, 16}, 43), rnd({1, 16, 8}, 44)}, {0, 1});  // B's batch dimension of 1 broadcasts
  expect_matches(MatMul{}, {rnd({3, 1, 4, 16}, 43), rnd({1, 16, 8}, 44)});          // a computed B
}
TEST(CpuMatMul, FusedActivations) {
  for (Activation act : {Activation::relu, Activation::sigmoid, Activation::tanh})
    expect_matches(MatMul{.act = act}, {rnd({2, 6, 9}, 37), rnd({9, 4}, 38)}, {0, 1});
}

}  // namespace
}  // namespace autograph::cpu
