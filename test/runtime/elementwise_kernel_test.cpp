#include <gtest/gtest.h>

#include "autograph/runtime/cpu/elementwise.hpp"
#include "kernel_testing.hpp"

namespace autograph {
namespace {

using testing::run1;
using testing::tensor_near;

// ---- Binary -------------------------------------------------------------------------------

TEST(BinaryKernel, EveryKindOnEqualShapes) {
  // a = (2, -3, 4), b = (3, 2, 0.5)
  Tensor a({3}, {2, -3, 4}), b({3}, {3, 2, 0.5f});
  EXPECT_TRUE(tensor_near(run1(Add{}, {a, b}), {3}, {5, -1, 4.5f}));
  EXPECT_TRUE(tensor_near(run1(Sub{}, {a, b}), {3}, {-1, -5, 3.5f}));
  EXPECT_TRUE(tensor_near(run1(Mul{}, {a, b}), {3}, {6, -6, 2}));
  EXPECT_TRUE(tensor_near(run1(Div{}, {a, b}), {3}, {2.f / 3, -1.5f, 8}));
  EXPECT_TRUE(tensor_near(run1(Pow{}, {a, b}), {3}, {8, 9, 2}));  // 2^3, (-3)^2, 4^0.5
  EXPECT_TRUE(tensor_near(run1(Max{}, {a, b}), {3}, {3, 2, 4}));
  EXPECT_TRUE(tensor_near(run1(Min{}, {a, b}), {3}, {2, -3, 0.5f}));
}

TEST(BinaryKernel, ColumnAgainstRowBroadcastsToAGrid) {
  // [3,1] (1,2,3) and [1,4] (10,20,30,40): y[i][j] = a[i] op b[j].
  Tensor a({3, 1}, {1, 2, 3}), b({1, 4}, {10, 20, 30, 40});
  EXPECT_TRUE(tensor_near(run1(Add{}, {a, b}), {3, 4}, {11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43}));
  EXPECT_TRUE(tensor_near(run1(Sub{}, {b, a}), {3, 4}, {9, 19, 29, 39, 8, 18, 28, 38, 7, 17, 27, 37}));
}

TEST(BinaryKernel, LowerRankAndScalarOperands) {
  // [2,3] + [3]: the row repeats; [2,2] * scalar 10; scalar - scalar.
  EXPECT_TRUE(tensor_near(run1(Add{}, {Tensor({2, 3}, {1, 2, 3, 4, 5, 6}), Tensor({3}, {10, 20, 30})}), {2, 3}, {11, 22, 33, 14, 25, 36}));
  EXPECT_TRUE(tensor_near(run1(Mul{}, {Tensor(Shape{}, {10}), Tensor({2, 2}, {1, 2, 3, 4})}), {2, 2}, {10, 20, 30, 40}));
  EXPECT_TRUE(tensor_near(run1(Sub{}, {Tensor(Shape{}, {5}), Tensor(Shape{}, {7})}), Shape{}, {-2}));
}

TEST(BinaryKernel, PerChannelScaleOfAKernelMatchesElementByElement) {
  // Folding a BatchNorm: [O, I, kh, kw] * [O, 1, 1, 1]. The strided loop merges I, kh and kw
  // into one run per output channel; every element must still meet its own scale.
  Shape ws{5, 3, 3, 2}, ss{5, 1, 1, 1};
  Tensor w = Tensor::random(ws, 1), s = Tensor::random(ss, 2);
  Tensor y = run1(Mul{}, {w, s});
  ASSERT_EQ(y.shape(), ws);
  auto wd = w.data(), sd = s.data(), yd = y.data();
  for (std::int64_t i = 0; i < ws.numel(); ++i) EXPECT_EQ(yd[i], wd[i] * sd[i / (3 * 3 * 2)]) << i;
  // And the other way round, a row [1, 1, 1, kw] against the whole kernel.
  Tensor r = Tensor::random({1, 1, 1, 2}, 3);
  Tensor z = run1(Add{}, {r, w});
  auto rd = r.data(), zd = z.data();
  for (std::int64_t i = 0; i < ws.numel(); ++i) EXPECT_EQ(zd[i], rd[i % 2] + wd[i]) << i;
}

TEST(BinaryKernel, MiddleAxisBroadcast) {
  // [2,1,2] (1,2 | 3,4) / [3,1] (1,2,4): y[i][j][k] = a[i][k] / b[j].
  Tensor y = run1(Div{}, {Tensor({2, 1, 2}, {1, 2, 3, 4}), Tensor({3, 1}, {1, 2, 4})});
  EXPECT_TRUE(tensor_near(y, {2, 3, 2}, {1, 2, 0.5f, 1, 0.25f, 0.5f, 3, 4, 1.5f, 2, 0.75f, 1}));
}

}  // namespace
}  // namespace autograph
