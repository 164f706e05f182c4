#include <gtest/gtest.h>

#include <cmath>

#include "autograph/runtime/cpu/matmul.hpp"
#include "kernel_testing.hpp"

namespace autograph {
namespace {

using testing::iota;
using testing::run1;
using testing::tensor_near;

TEST(MatMulKernel, TwoByThreeTimesThreeByTwo) {
  // [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]]:
  // 1*7+2*9+3*11 = 58, 1*8+2*10+3*12 = 64, 4*7+5*9+6*11 = 139, 4*8+5*10+6*12 = 154.
  EXPECT_TRUE(tensor_near(run1(MatMul{}, {iota({2, 3}, 1), iota({3, 2}, 7)}), {2, 2}, {58, 64, 139, 154}));
}

TEST(MatMulKernel, BatchDimensionsBroadcastBothWays) {
  // a [2,1,1,1] holds the 1x1 matrices 2, 3; b [3,1,1] holds 1, 10, 100. Batch [2,1] x [3] -> [2,3].
  Tensor y = run1(MatMul{}, {Tensor({2, 1, 1, 1}, {2, 3}), Tensor({3, 1, 1}, {1, 10, 100})});
  EXPECT_TRUE(tensor_near(y, {2, 3, 1, 1}, {2, 20, 200, 3, 30, 300}));
}

TEST(MatMulKernel, BroadcastTwoByOneAgainstFive) {
  // [2,1,3,4] x [5,4,2] -> [2,5,3,2]: y[i,j] = a[i,0] x b[j], written out as the definition.
  Tensor a = iota({2, 1, 3, 4}), b = iota({5, 4, 2}, -20);
  Tensor y = run1(MatMul{}, {a, b});
  std::vector<float> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 5; ++j)
      for (int m = 0; m < 3; ++m)
        for (int n = 0; n < 2; ++n) {
          float s = 0;
          for (int k = 0; k < 4; ++k) s += a.data()[static_cast<std::size_t>(i * 12 + m * 4 + k)] * b.data()[static_cast<std::size_t>(j * 8 + k * 2 + n)];
          want.push_back(s);
        }
  EXPECT_TRUE(tensor_near(y, {2, 5, 3, 2}, want));
}

TEST(MatMulKernel, BatchedTimesMatrix) {
  // a [2,2,2] = rows (1,2) (3,4) (5,6) (7,8); b = (1, 10)^T: 21, 43, 65, 87.
  EXPECT_TRUE(tensor_near(run1(MatMul{}, {iota({2, 2, 2}, 1), Tensor({2, 1}, {1, 10})}), {2, 2, 1}, {21, 43, 65, 87}));
}

TEST(MatMulKernel, MatrixTimesBatched) {
  // (1,2) x [(3,4)^T, (5,6)^T] = 1*3+2*4 = 11, 1*5+2*6 = 17.
  EXPECT_TRUE(tensor_near(run1(MatMul{}, {Tensor({1, 2}, {1, 2}), Tensor({2, 2, 1}, {3, 4, 5, 6})}), {2, 1, 1}, {11, 17}));
}

TEST(MatMulKernel, FusedActivations) {
  // (1,-2) x I = (1,-2), then the activation.
  Tensor a({1, 2}, {1, -2}), eye({2, 2}, {1, 0, 0, 1});
  EXPECT_TRUE(tensor_near(run1(MatMul{.act = Activation::relu}, {a, eye}), {1, 2}, {1, 0}));
  EXPECT_TRUE(tensor_near(run1(MatMul{.act = Activation::tanh}, {a, eye}), {1, 2}, {std::tanh(1.f), std::tanh(-2.f)}));
  EXPECT_TRUE(tensor_near(run1(MatMul{.act = Activation::sigmoid}, {a, eye}), {1, 2}, {1 / (1 + std::exp(-1.f)), 1 / (1 + std::exp(2.f))}));
}

TEST(MatMulKernel, EmptyInnerDimensionGivesZeros) {
  EXPECT_TRUE(tensor_near(run1(MatMul{}, {Tensor({2, 0}), Tensor({0, 3})}), {2, 3}, std::vector<float>(6, 0.f)));
}

}  // namespace
}  // namespace autograph
