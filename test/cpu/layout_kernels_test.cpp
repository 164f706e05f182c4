// The data movement ops and Resize on the CPU runtime against the reference kernels.
#include "cpu/kernel_harness.hpp"

namespace autograph::cpu {
namespace {

using namespace testing;

// ---- data movement --------------------------------------------------------------------------

TEST(CpuConcat, EveryAxisAndEmptyInputs) {
  expect_matches(Concat{.axis = 1}, {rnd({2, 3, 4, 5}, 90), rnd({2, 6, 4, 5}, 91), rnd({2, 1, 4, 5}, 92)});
  expect_matches(Concat{.axis = 0}, {rnd({2, 3, 4}, 93), rnd({1, 3, 4}, 94)});
  expect_matches(Concat{.axis = -1}, {rnd({2, 3, 4}, 95), rnd({2, 3, 7}, 96)});
  expect_matches(Concat{.axis = 2}, {rnd({2, 3, 4}, 97), rnd({2, 3, 0}, 98), rnd({2, 3, 2}, 99)});
  expect_matches(Concat{.axis = 1}, {rnd({2, 0}, 100), rnd({2, 3}, 101)});
}
TEST(CpuSplit, AlongEachAxis) {
  expect_matches(Split{.axis = 1, .sizes = {2, 3, 1}}, {rnd({2, 6, 4}, 102)});
  expect_matches(Split{.axis = 0, .sizes = {1, 3}}, {rnd({4, 5}, 103)});
  expect_matches(Split{.axis = -1, .sizes = {4, 0, 3}}, {rnd({2, 3, 7}, 104)});
}
TEST(CpuTranspose, Permutations) {
  Tensor x = rnd({2, 3, 4, 5}, 105);
  for (std::vector<std::int64_t> perm : {std::vector<std::int64_t>{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {3, 2, 1, 0}, {1, 0, 2, 3}})
    expect_matches(Transpose{.perm = perm}, {x});
  expect_matches(Transpose{.perm = {1, 0}}, {rnd({7, 9}, 106)});
  expect_matches(Transpose{.perm = {4, 0, 5, 1, 2, 3, 7, 6}}, {rnd({2, 1, 3, 2, 1, 2, 3, 2}, 107)});
}
TEST(CpuSlice, StartsEndsSteps) {
  Tensor x = rnd({4, 6, 8}, 108);
  expect_matches(Slice{.axes = {1}, .starts = {1}, .ends = {5}}, {x});
  expect_matches(Slice{.axes = {0, 2}, .starts = {1, -6}, .ends = {100, -1}, .steps = {2, 3}}, {x});
  expect_matches(Slice{.axes = {2, 1}, .starts = {0, 2}, .ends = {8, 6}, .steps = {2, 1}}, {x});
  expect_matches(Slice{.axes = {1}, .starts = {4}, .ends = {2}}, {x});  // empty
}
TEST(CpuPad, ConstantPadding) {
  expect_matches(Pad{.pads = {0, 1, 2, 0, 0, 3, 1, 0}}, {rnd({2, 3, 4, 5}, 109)});
  expect_matches(Pad{.pads = {1, 2, 3, 0}, .value = -1.5f}, {rnd({3, 4}, 110)});
  expect_matches(Pad{.pads = {0, 0, 0, 0}}, {rnd({3, 4}, 111)});
}
TEST(CpuEnlarge, CentresTheKernel) {
  expect_matches(Enlarge{.kernel = {5, 5}}, {rnd({4, 3, 1, 3}, 112)});
  expect_matches(Enlarge{.kernel = {3, 3}}, {rnd({4, 3, 3, 3}, 113)});
}

Resize resize(std::vector<std::int64_t> sizes, ResizeMode mode, ResizeCoordinate coordinate) {
  return Resize{.sizes = std::move(sizes), .mode = mode, .coordinate = coordinate};
}
TEST(CpuResize, ModesAndCoordinates) {
  Tensor x = rnd({1, 2, 5, 6}, 114);
  for (ResizeMode mode : {ResizeMode::nearest, ResizeMode::linear, ResizeMode::cubic})
    for (ResizeCoordinate c : {ResizeCoordinate::half_pixel, ResizeCoordinate::pytorch_half_pixel, ResizeCoordinate::align_corners,
                               ResizeCoordinate::asymmetric, ResizeCoordinate::tf_half_pixel_for_nn}) {
      expect_matches(resize({1, 2, 10, 12}, mode, c), {x});
      expect_matches(resize({1, 2, 3, 4}, mode, c), {x});
      expect_matches(resize({2, 3, 7, 6}, mode, c), {x});  // every axis, the last one unchanged
    }
  Resize crop = resize({1, 2, 4, 4}, ResizeMode::linear, ResizeCoordinate::tf_crop_and_resize);
  crop.roi = {0, 0, 0.2, -0.1, 1, 1, 0.9, 1.2};
  crop.extrapolation_value = 7.f;
  expect_matches(crop, {x});
  Resize cubic = resize({1, 2, 9, 9}, ResizeMode::cubic, ResizeCoordinate::half_pixel);
  cubic.exclude_outside = true;
  cubic.cubic_coeff_a = -0.5f;
  expect_matches(cubic, {x});
  expect_matches(resize({1, 2, 5, 6}, ResizeMode::linear, ResizeCoordinate::half_pixel), {x});  // nothing changes: a copy
}

}  // namespace
}  // namespace autograph::cpu
