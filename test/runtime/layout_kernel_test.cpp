#include <gtest/gtest.h>

#include "autograph/runtime/cpu/layout.hpp"
#include "kernel_testing.hpp"

namespace autograph {
namespace {

using testing::iota;
using testing::run1;
using testing::run_kernel;
using testing::tensor_near;

TEST(ConcatKernel, AxisZero) {
  // [1,2] (1,2) over [2,2] (3,4,5,6): rows stack.
  Tensor y = run1(Concat{.axis = 0}, {Tensor({1, 2}, {1, 2}), Tensor({2, 2}, {3, 4, 5, 6})});
  EXPECT_TRUE(tensor_near(y, {3, 2}, {1, 2, 3, 4, 5, 6}));
}

TEST(ConcatKernel, LastAxis) {
  // [2,1] (1 | 2) beside [2,2] (3,4 | 5,6): rows (1,3,4) and (2,5,6).
  Tensor y = run1(Concat{.axis = -1}, {Tensor({2, 1}, {1, 2}), Tensor({2, 2}, {3, 4, 5, 6})});
  EXPECT_TRUE(tensor_near(y, {2, 3}, {1, 3, 4, 2, 5, 6}));
}

TEST(ConcatKernel, ChannelsOfThreeInputs) {
  // NCHW channel concat with batch 2: each image's channels are [a | b | c].
  Tensor y = run1(Concat{.axis = 1}, {Tensor({2, 1, 1, 1}, {1, 2}), Tensor({2, 2, 1, 1}, {3, 4, 5, 6}), Tensor({2, 1, 1, 1}, {7, 8})});
  EXPECT_TRUE(tensor_near(y, {2, 4, 1, 1}, {1, 3, 4, 7, 2, 5, 6, 8}));
}

TEST(SplitKernel, AxisZero) {
  auto out = run_kernel(Split{.axis = 0, .sizes = {1, 2}}, {iota({3, 2}, 1)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(tensor_near(out[0], {1, 2}, {1, 2}));
  EXPECT_TRUE(tensor_near(out[1], {2, 2}, {3, 4, 5, 6}));
}

TEST(SplitKernel, LastAxisUndoesConcat) {
  // (1,3,4 | 2,5,6) split (1, 2) along the last axis: (1 | 2) and (3,4 | 5,6).
  auto out = run_kernel(Split{.axis = -1, .sizes = {1, 2}}, {Tensor({2, 3}, {1, 3, 4, 2, 5, 6})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(tensor_near(out[0], {2, 1}, {1, 2}));
  EXPECT_TRUE(tensor_near(out[1], {2, 2}, {3, 4, 5, 6}));
}

TEST(ReshapeKernel, IsAViewOfTheSameStorage) {
  Tensor x = iota({2, 3});
  Tensor y = run1(Reshape{.shape = {3, -1}}, {x});
  EXPECT_EQ(y.storage(), x.storage());
  EXPECT_TRUE(tensor_near(y, {3, 2}, {0, 1, 2, 3, 4, 5}));
}

TEST(TransposeKernel, Matrix) {
  EXPECT_TRUE(tensor_near(run1(Transpose{.perm = {1, 0}}, {iota({2, 3}, 1)}), {3, 2}, {1, 4, 2, 5, 3, 6}));
}

TEST(TransposeKernel, FourDimensions) {
  // x [2,3,4,5] = iota: x[a][b][c][d] = ((a*3 + b)*4 + c)*5 + d. perm (2,0,3,1) -> y [4,2,5,3]
  // with y[i][j][k][l] = x[j][l][i][k] (out dim 0 is in dim 2, 1 is 0, 2 is 3, 3 is 1).
  Tensor y = run1(Transpose{.perm = {2, 0, 3, 1}}, {iota({2, 3, 4, 5})});
  std::vector<float> want;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 5; ++k)
        for (int l = 0; l < 3; ++l) want.push_back(static_cast<float>(((j * 3 + l) * 4 + i) * 5 + k));
  EXPECT_TRUE(tensor_near(y, {4, 2, 5, 3}, want));
  EXPECT_EQ(y.data()[1], 20.f);  // y[0][0][0][1] = x[0][1][0][0] = 1*4*5
  EXPECT_EQ(y.data()[3], 1.f);   // y[0][0][1][0] = x[0][0][0][1]
}

TEST(SliceKernel, NegativeStartAndStepTwo) {
  // x [2,7] = 0..13. Axis 1 from -6 (= 1) to the end in steps of 2: columns 1, 3, 5.
  Tensor y = run1(Slice{.axes = {1}, .starts = {-6}, .ends = {7}, .steps = {2}}, {iota({2, 7})});
  EXPECT_TRUE(tensor_near(y, {2, 3}, {1, 3, 5, 8, 10, 12}));
}

TEST(SliceKernel, SeveralAxesWithClampedEnds) {
  // Axis 0 from -1 (= 1) to 2; axis -1 from 2 to 100 (clamped to 7) in steps of 3: columns 2, 5.
  Tensor y = run1(Slice{.axes = {0, -1}, .starts = {-1, 2}, .ends = {2, 100}, .steps = {1, 3}}, {iota({2, 7})});
  EXPECT_TRUE(tensor_near(y, {1, 2}, {9, 12}));
  // A negative end: rows [0, -1) = row 0 only; no steps given means 1.
  EXPECT_TRUE(tensor_near(run1(Slice{.axes = {0}, .starts = {0}, .ends = {-1}, .steps = {}}, {iota({2, 2})}), {1, 2}, {0, 1}));
}

TEST(SliceKernel, EmptyResult) {
  EXPECT_TRUE(tensor_near(run1(Slice{.axes = {1}, .starts = {3}, .ends = {1}, .steps = {}}, {iota({2, 4})}), {2, 0}, {}));
}

TEST(PadKernel, OnnxOrderBeforesThenAfters) {
  // x [2,2] (1,2 | 3,4), pads (1,0, 0,2): one row before dim 0, two columns after dim 1, value 9.
  Tensor y = run1(Pad{.pads = {1, 0, 0, 2}, .value = 9}, {Tensor({2, 2}, {1, 2, 3, 4})});
  EXPECT_TRUE(tensor_near(y, {3, 4}, {9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9}));
}

TEST(PadKernel, ThreeDimensionsZero) {
  // [1,1,2] (5,6) padded by one on every side of the last two dims: a 3x4 frame of zeros.
  Tensor y = run1(Pad{.pads = {0, 1, 1, 0, 1, 1}}, {Tensor({1, 1, 2}, {5, 6})});
  EXPECT_TRUE(tensor_near(y, {1, 3, 4}, {0, 0, 0, 0, 0, 5, 6, 0, 0, 0, 0, 0}));
}

TEST(EnlargeKernel, OneByThreeToThreeByThree) {
  // w [1,2,1,3]: rows (1,2,3) and (4,5,6) centred in 3x3 zeros: offset (3-1)/2 = 1 row, 0 columns.
  Tensor y = run1(Enlarge{.kernel = {3, 3}}, {iota({1, 2, 1, 3}, 1)});
  EXPECT_TRUE(tensor_near(y, {1, 2, 3, 3}, {0, 0, 0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 4, 5, 6, 0, 0, 0}));
}

TEST(EnlargeKernel, OneByOneToThreeByFive) {
  // Each 1x1 weight lands at row 1, column 2 of a 3x5 kernel.
  Tensor y = run1(Enlarge{.kernel = {3, 5}}, {Tensor({2, 1, 1, 1}, {7, 8})});
  std::vector<float> want(30, 0.f);
  want[7] = 7;       // 1*5 + 2
  want[15 + 7] = 8;  // second kernel
  EXPECT_TRUE(tensor_near(y, {2, 1, 3, 5}, want));
}

}  // namespace
}  // namespace autograph
