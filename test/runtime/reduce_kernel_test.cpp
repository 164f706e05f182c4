#include <gtest/gtest.h>

#include "autograph/runtime/cpu/reduce.hpp"
#include "kernel_testing.hpp"

namespace autograph {
namespace {

using testing::iota;
using testing::run1;
using testing::tensor_near;

// x [2,3] = (1,2,3 | 4,5,6)
Tensor x23() { return iota({2, 3}, 1); }

TEST(ReduceKernel, MeanOverLastAxisDroppingIt) {
  // (1+2+3)/3 = 2, (4+5+6)/3 = 5
  EXPECT_TRUE(tensor_near(run1(Reduce{.kind = ReduceKind::mean, .axes = {1}, .keepdims = false}, {x23()}), {2}, {2, 5}));
}

TEST(ReduceKernel, SumOverFirstAxisKeepingIt) {
  // columns: 1+4, 2+5, 3+6
  EXPECT_TRUE(tensor_near(run1(Reduce{.kind = ReduceKind::sum, .axes = {0}, .keepdims = true}, {x23()}), {1, 3}, {5, 7, 9}));
}

TEST(ReduceKernel, EmptyAxesMeansAll) {
  // 21 / 6 = 3.5, as [1,1] or as a scalar.
  EXPECT_TRUE(tensor_near(run1(Reduce{.kind = ReduceKind::mean, .axes = {}}, {x23()}), {1, 1}, {3.5f}));
  EXPECT_TRUE(tensor_near(run1(Reduce{.kind = ReduceKind::mean, .axes = {}, .keepdims = false}, {x23()}), Shape{}, {3.5f}));
}

TEST(ReduceKernel, OuterAndInnerAxesWithNegativeIndex) {
  // x [2,3,2] = 0..11, x[a][b][c] = 6a + 2b + c. Sum over a and c:
  // 2b + (2b+1) + (6+2b) + (7+2b) = 8b + 14 -> (14, 22, 30).
  Tensor y = run1(Reduce{.kind = ReduceKind::sum, .axes = {-1, 0}, .keepdims = false}, {iota({2, 3, 2})});
  EXPECT_TRUE(tensor_near(y, {3}, {14, 22, 30}));
}

TEST(ReduceKernel, SpatialMeanKeepingDims) {
  // [1,2,2,2]: channel means (0+1+2+3)/4 = 1.5 and (4+5+6+7)/4 = 5.5, as global average pooling.
  Tensor y = run1(Reduce{.kind = ReduceKind::mean, .axes = {2, 3}}, {iota({1, 2, 2, 2})});
  EXPECT_TRUE(tensor_near(y, {1, 2, 1, 1}, {1.5f, 5.5f}));
}

}  // namespace
}  // namespace autograph
