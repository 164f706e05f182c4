#include <gtest/gtest.h>

#include "autograph/runtime/cpu/pool2d.hpp"
#include "kernel_testing.hpp"

namespace autograph {
namespace {

using testing::iota;
using testing::run1;
using testing::tensor_near;

// x[h][w] = 4h + w + 1:
//    1  2  3  4
//    5  6  7  8
//    9 10 11 12
//   13 14 15 16
Tensor grid4() { return iota({1, 1, 4, 4}, 1); }

TEST(Pool2DKernel, MaxTwoByTwoStrideTwo) {
  Pool2D op{.kind = PoolKind::max, .kernel = {2, 2}, .stride = {2, 2}};
  EXPECT_TRUE(tensor_near(run1(op, {grid4()}), {1, 1, 2, 2}, {6, 8, 14, 16}));
}

TEST(Pool2DKernel, MaxIgnoresPaddedCells) {
  // x = -(4h + w + 1): every value is negative, so a padded zero would win if it counted.
  // 3x3 windows, pad 1: the largest value in a window is its top-left cell inside the image,
  // y[h][w] = -(4 max(h-1,0) + max(w-1,0) + 1).
  Tensor x = iota({1, 1, 4, 4}, 1);
  for (float& v : x.mutable_data()) v = -v;
  Pool2D op{.kind = PoolKind::max, .kernel = {3, 3}, .stride = {1, 1}, .pad = {1, 1, 1, 1}};
  EXPECT_TRUE(tensor_near(run1(op, {x}), {1, 1, 4, 4}, {-1, -1, -2, -3, -1, -1, -2, -3, -5, -5, -6, -7, -9, -9, -10, -11}));
}

TEST(Pool2DKernel, AverageExcludingPadding) {
  // x = 1..9 in 3x3, 3x3 windows with pad 1. Window sums: 12 21 16 / 27 45 33 / 24 39 28;
  // cells inside the image: 4 6 4 / 6 9 6 / 4 6 4.
  Pool2D op{.kind = PoolKind::avg, .kernel = {3, 3}, .stride = {1, 1}, .pad = {1, 1, 1, 1}, .count_include_pad = false};
  EXPECT_TRUE(tensor_near(run1(op, {iota({1, 1, 3, 3}, 1)}), {1, 1, 3, 3},
                          {12 / 4.f, 21 / 6.f, 16 / 4.f, 27 / 6.f, 45 / 9.f, 33 / 6.f, 24 / 4.f, 39 / 6.f, 28 / 4.f}));
}

TEST(Pool2DKernel, AverageIncludingPadding) {
  // Same sums, every window divided by the full 3x3 = 9.
  Pool2D op{.kind = PoolKind::avg, .kernel = {3, 3}, .stride = {1, 1}, .pad = {1, 1, 1, 1}, .count_include_pad = true};
  EXPECT_TRUE(tensor_near(run1(op, {iota({1, 1, 3, 3}, 1)}), {1, 1, 3, 3},
                          {12 / 9.f, 21 / 9.f, 16 / 9.f, 27 / 9.f, 45 / 9.f, 33 / 9.f, 24 / 9.f, 39 / 9.f, 28 / 9.f}));
}

TEST(Pool2DKernel, CeilModeClipsWindowsAtTheEnd) {
  // 2x2 stride 2 over 3x3 (1..9), ceil mode: 2x2 outputs, the last row and column of windows
  // hang off the end. (0,0): (1+2+4+5)/4 = 3; (0,1): (3+6)/2 = 4.5; (1,0): (7+8)/2 = 7.5; (1,1): 9.
  // No padding, so counting padding changes nothing.
  for (bool include : {false, true}) {
    Pool2D op{.kind = PoolKind::avg, .kernel = {2, 2}, .stride = {2, 2}, .count_include_pad = include, .ceil_mode = true};
    EXPECT_TRUE(tensor_near(run1(op, {iota({1, 1, 3, 3}, 1)}), {1, 1, 2, 2}, {3, 4.5f, 7.5f, 9})) << include;
  }
  Pool2D max{.kind = PoolKind::max, .kernel = {2, 2}, .stride = {2, 2}, .ceil_mode = true};
  EXPECT_TRUE(tensor_near(run1(max, {iota({1, 1, 3, 3}, 1)}), {1, 1, 2, 2}, {5, 6, 8, 9}));
}

TEST(Pool2DKernel, CeilModeWithPaddingCountsOnlyThePaddedExtent) {
  // 4x4 ones, 3x3 windows, stride 2, pad 1, ceil mode: 3 windows per axis covering rows
  // [-1,2), [1,4), [3,6). The padded input ends at row 5, so the last window has 2 rows in the
  // padded input (3 and 4) and 1 inside the image (3). Per axis: inside/padded = 2/3, 3/3, 1/2.
  Tensor ones({1, 1, 4, 4}, std::vector<float>(16, 1.f));
  Pool2D op{.kind = PoolKind::avg, .kernel = {3, 3}, .stride = {2, 2}, .pad = {1, 1, 1, 1}, .count_include_pad = true, .ceil_mode = true};
  float a = 2.f / 3, b = 1, c = 0.5f;
  EXPECT_TRUE(tensor_near(run1(op, {ones}), {1, 1, 3, 3}, {a * a, a * b, a * c, b * a, b * b, b * c, c * a, c * b, c * c}));
  op.count_include_pad = false;  // the average of ones over the cells inside the image
  EXPECT_TRUE(tensor_near(run1(op, {ones}), {1, 1, 3, 3}, std::vector<float>(9, 1.f)));
  // Max over x = 4h + w + 1: the windows' last rows/columns inside the image are 1, 3, 3,
  // so y[i][j] = 4 r_i + r_j + 1 with r = (1, 3, 3).
  op.kind = PoolKind::max;
  EXPECT_TRUE(tensor_near(run1(op, {grid4()}), {1, 1, 3, 3}, {6, 8, 8, 14, 16, 16, 14, 16, 16}));
}

TEST(Pool2DKernel, GlobalAverageAndMaxPerChannel) {
  Tensor x({1, 2, 2, 2}, {1, 2, 3, 4, -1, -5, 0, 2});
  // avg: (1+2+3+4)/4 = 2.5, (-1-5+0+2)/4 = -1; max: 4, 2.
  EXPECT_TRUE(tensor_near(run1(Pool2D{.kind = PoolKind::avg, .global = true}, {x}), {1, 2, 1, 1}, {2.5f, -1}));
  EXPECT_TRUE(tensor_near(run1(Pool2D{.kind = PoolKind::max, .global = true}, {x}), {1, 2, 1, 1}, {4, 2}));
}

TEST(Pool2DKernel, EachPlaneOfABatchPoolsAlone) {
  // [2,2,1,2]: four planes (1,2) (3,4) (5,6) (7,8); 1x2 max windows.
  Pool2D op{.kind = PoolKind::max, .kernel = {1, 2}};
  EXPECT_TRUE(tensor_near(run1(op, {iota({2, 2, 1, 2}, 1)}), {2, 2, 1, 1}, {2, 4, 6, 8}));
}

}  // namespace
}  // namespace autograph
