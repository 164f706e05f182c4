#include <gtest/gtest.h>

#include <cmath>

#include "autograph/runtime/cpu/conv2d.hpp"
#include "kernel_testing.hpp"

namespace autograph {
namespace {

using testing::iota;
using testing::run1;
using testing::tensor_near;

TEST(Conv2DKernel, PlainValidConvolution) {
  // x = [[1,2,3],[4,5,6],[7,8,9]], w = [[1,2],[3,4]]
  // y00 = 1*1+2*2+3*4+4*5 = 37   y01 = 1*2+2*3+3*5+4*6 = 47
  // y10 = 1*4+2*5+3*7+4*8 = 67   y11 = 1*5+2*6+3*8+4*9 = 77
  Tensor y = run1(Conv2D{}, {iota({1, 1, 3, 3}, 1), iota({1, 1, 2, 2}, 1)});
  EXPECT_TRUE(tensor_near(y, {1, 1, 2, 2}, {37, 47, 67, 77}));
}

TEST(Conv2DKernel, StrideTwoWithAsymmetricPadding) {
  // x 1..9, w 2x2 ones, pad top 1 / right 1, stride 2: padded rows -1..2, cols 0..3.
  // (0,0): rows -1,0 cols 0,1 -> 1+2 = 3      (0,1): rows -1,0 cols 2,3 -> 3
  // (1,0): rows 1,2 cols 0,1 -> 4+5+7+8 = 24  (1,1): rows 1,2 cols 2,3 -> 6+9 = 15
  Conv2D op{.stride = {2, 2}, .pad = {1, 0, 0, 1}};
  Tensor y = run1(op, {iota({1, 1, 3, 3}, 1), Tensor({1, 1, 2, 2}, {1, 1, 1, 1})});
  EXPECT_TRUE(tensor_near(y, {1, 1, 2, 2}, {3, 3, 24, 15}));
}

TEST(Conv2DKernel, Dilation) {
  // x[h][w] = 5h + w on 5x5; a 2x2 ones kernel dilated by 2 reads (h,w),(h,w+2),(h+2,w),(h+2,w+2):
  // y[h][w] = 4(5h + w) + (2 + 10 + 12) = 20h + 4w + 24.
  Conv2D op{.dilation = {2, 2}};
  Tensor y = run1(op, {iota({1, 1, 5, 5}), Tensor({1, 1, 2, 2}, {1, 1, 1, 1})});
  EXPECT_TRUE(tensor_near(y, {1, 1, 3, 3}, {24, 28, 32, 44, 48, 52, 64, 68, 72}));
}

TEST(Conv2DKernel, GroupsReadOnlyTheirChannels) {
  // x = (1,2,3,4); groups 2: outputs 0,1 see (x0,x1), outputs 2,3 see (x2,x3).
  // w rows (1,0) (0,1) (1,1) (2,-1): y = (1, 2, 3+4 = 7, 2*3-4 = 2).
  Conv2D op{.groups = 2};
  Tensor y = run1(op, {Tensor({1, 4, 1, 1}, {1, 2, 3, 4}), Tensor({4, 2, 1, 1}, {1, 0, 0, 1, 1, 1, 2, -1})});
  EXPECT_TRUE(tensor_near(y, {1, 4, 1, 1}, {1, 2, 7, 2}));
}

TEST(Conv2DKernel, DepthwiseSamePadding) {
  // Channel 0: x = 1..9, 3x3 ones kernel, pad 1: the 3x3 box sums of [[1,2,3],[4,5,6],[7,8,9]].
  //   12 = 1+2+4+5, 21 = 1+..+6, 16 = 2+3+5+6, 27 = 1+2+4+5+7+8, 45, 33, 24, 39, 28.
  // Channel 1: x = ones, kernel of 2s: 2 x (cells inside the image): corners 4, edges 6, centre 9.
  Conv2D op{.pad = {1, 1, 1, 1}, .groups = 2};
  Tensor x({1, 2, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  Tensor w({2, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2});
  Tensor y = run1(op, {x, w});
  EXPECT_TRUE(tensor_near(y, {1, 2, 3, 3}, {12, 21, 16, 27, 45, 33, 24, 39, 28, 8, 12, 8, 12, 18, 12, 8, 12, 8}));
}

TEST(Conv2DKernel, BiasAndEachActivation) {
  // x = (-1, 2) on one row; w = (1, -1) for two output channels; bias (0.5, 0).
  // Before activation: channel 0 = (-1 + 0.5, 2 + 0.5) = (-0.5, 2.5); channel 1 = (1, -2).
  Tensor x({1, 1, 1, 2}, {-1, 2}), w({2, 1, 1, 1}, {1, -1}), b({2}, {0.5f, 0});
  std::vector<float> pre = {-0.5f, 2.5f, 1, -2};
  auto sigmoid = [](float v) { return 1.f / (1.f + std::exp(-v)); };
  EXPECT_TRUE(tensor_near(run1(Conv2D{.act = Activation::none}, {x, w, b}), {1, 2, 1, 2}, pre));
  EXPECT_TRUE(tensor_near(run1(Conv2D{.act = Activation::relu}, {x, w, b}), {1, 2, 1, 2}, {0, 2.5f, 1, 0}));
  EXPECT_TRUE(tensor_near(run1(Conv2D{.act = Activation::sigmoid}, {x, w, b}), {1, 2, 1, 2},
                          {sigmoid(-0.5f), sigmoid(2.5f), sigmoid(1), sigmoid(-2)}));
  EXPECT_TRUE(tensor_near(run1(Conv2D{.act = Activation::tanh}, {x, w, b}), {1, 2, 1, 2},
                          {std::tanh(-0.5f), std::tanh(2.5f), std::tanh(1.f), std::tanh(-2.f)}));
}

TEST(Conv2DKernel, BatchOfTwoUsesEachImage) {
  // 1x1 conv with weight 2: each image doubles; bias 1.
  Tensor y = run1(Conv2D{}, {Tensor({2, 1, 1, 2}, {1, 2, 3, 4}), Tensor({1, 1, 1, 1}, {2}), Tensor({1}, {1})});
  EXPECT_TRUE(tensor_near(y, {2, 1, 1, 2}, {3, 5, 7, 9}));
}

}  // namespace
}  // namespace autograph
