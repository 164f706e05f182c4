#include <gtest/gtest.h>

#include <cmath>

#include "autograph/runtime/cpu/normalization.hpp"
#include "autograph/runtime/cpu/softmax.hpp"
#include "kernel_testing.hpp"

namespace autograph {
namespace {

using testing::iota;
using testing::run1;
using testing::tensor_near;

// ---- BatchNorm ----------------------------------------------------------------------------

TEST(BatchNormKernel, NormalisesEachChannel) {
  // x [1,2,1,2]: channel 0 = (1, 2), channel 1 = (3, 5); eps 0.
  // channel 0: scale 2, bias 0.5, mean 1, var 4: (1-1)/2*2+0.5 = 0.5, (2-1)/2*2+0.5 = 1.5
  // channel 1: scale 1, bias -1, mean 4, var 1:  (3-4)/1*1-1 = -2,   (5-4)/1*1-1 = 0
  Tensor x({1, 2, 1, 2}, {1, 2, 3, 5});
  Tensor scale({2}, {2, 1}), bias({2}, {0.5f, -1}), mean({2}, {1, 4}), var({2}, {4, 1});
  EXPECT_TRUE(tensor_near(run1(BatchNorm{.epsilon = 0}, {x, scale, bias, mean, var}), {1, 2, 1, 2}, {0.5f, 1.5f, -2, 0}));
}

TEST(BatchNormKernel, EpsilonIsAddedToTheVariance) {
  // var 0, eps 1: divide by sqrt(0 + 1) = 1; var 3, eps 1: divide by 2.
  Tensor x({2, 2}, {1, 4, -1, 8});  // rank 2: [N, C]
  Tensor scale({2}, {1, 1}), bias({2}, {0.f, 0}), mean({2}, {0.f, 0}), var({2}, {0.f, 3});
  EXPECT_TRUE(tensor_near(run1(BatchNorm{.epsilon = 1}, {x, scale, bias, mean, var}), {2, 2}, {1, 2, -1, 4}));
}

// ---- LayerNorm ----------------------------------------------------------------------------

TEST(LayerNormKernel, OverTheLastTwoAxes) {
  // x [2,2,2], rows of 4: (1,2,3,4) and (2,2,2,2). gamma (1,1,2,2), beta (0,0,0,1), eps 1e-5.
  // Row 0: mean 2.5, biased var (2.25+0.25+0.25+2.25)/4 = 1.25, s = sqrt(1.25 + 1e-5):
  //   (-1.5/s, -0.5/s, 2*0.5/s, 2*1.5/s + 1).
  // Row 1: centred values are all 0, so y = beta.
  float s = std::sqrt(1.25f + 1e-5f);
  Tensor x({2, 2, 2}, {1, 2, 3, 4, 2, 2, 2, 2});
  Tensor gamma({2, 2}, {1, 1, 2, 2}), beta({2, 2}, {0, 0, 0, 1});
  EXPECT_TRUE(tensor_near(run1(LayerNorm{.axis = -2}, {x, gamma, beta}), {2, 2, 2}, {-1.5f / s, -0.5f / s, 1 / s, 3 / s + 1, 0, 0, 0, 1}));
}

TEST(LayerNormKernel, EpsilonInsideTheSquareRoot) {
  // (0, 2): mean 1, var 1; eps 3 -> sqrt(1 + 3) = 2, so (-1/2, 1/2). Axis 1 of [1,2].
  Tensor y = run1(LayerNorm{.axis = 1, .epsilon = 3}, {Tensor({1, 2}, {0.f, 2}), Tensor({2}, {1, 1}), Tensor({2}, {0.f, 0})});
  EXPECT_TRUE(tensor_near(y, {1, 2}, {-0.5f, 0.5f}));
}

// ---- Softmax ------------------------------------------------------------------------------

TEST(SoftmaxKernel, AlongAMiddleAxis) {
  // x [2,3,2], softmax over axis 1 (3 values at stride 2). x[o][k][i] is element o*6 + k*2 + i.
  // (o,i) = (0,0): (0, ln 2, ln 5)      -> (1, 2, 5) / 8       = (0.125, 0.25, 0.625)
  // (0,1): (1000, 1000, 1000)           -> 1/3 each (exp(1000) overflows without the max shift)
  // (1,0): (0, 0, ln 3)                 -> (1, 1, 3) / 5       = (0.2, 0.2, 0.6)
  // (1,1): (-1000, 0, -1000)            -> (0, 1, 0)
  float l2 = std::log(2.f), l5 = std::log(5.f), l3 = std::log(3.f), third = 1.f / 3;
  Tensor x({2, 3, 2}, {0, 1000, l2, 1000, l5, 1000, 0, -1000, 0, 0, l3, -1000});
  EXPECT_TRUE(tensor_near(run1(Softmax{.axis = 1}, {x}), {2, 3, 2}, {0.125f, third, 0.25f, third, 0.625f, third, 0.2f, 0, 0.2f, 1, 0.6f, 0}));
}

TEST(SoftmaxKernel, LastAndFirstAxis) {
  // [2,2] (0, ln 3 | ln 4, 0): rows -> (1/4, 3/4), (4/5, 1/5); columns -> (1/5, 4/5 | 3/4, 1/4).
  Tensor x({2, 2}, {0, std::log(3.f), std::log(4.f), 0});
  EXPECT_TRUE(tensor_near(run1(Softmax{}, {x}), {2, 2}, {0.25f, 0.75f, 0.8f, 0.2f}));
  EXPECT_TRUE(tensor_near(run1(Softmax{.axis = 0}, {x}), {2, 2}, {0.2f, 0.75f, 0.8f, 0.25f}));
}

}  // namespace
}  // namespace autograph
