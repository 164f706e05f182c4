#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "autograph/runtime/cpu/unary.hpp"
#include "kernel_testing.hpp"

namespace autograph {
namespace {

using testing::run1;
using testing::tensor_near;

// ---- Unary --------------------------------------------------------------------------------

/// Runs Unary<K> on `xs` and compares with `f` evaluated in double. (`f` is a plain function
/// pointer so that only the kernel call is instantiated per kind: this TU compiles fast.)
void expect_values(std::string_view what, Tensor const& y, std::vector<float> const& xs, double (*f)(double)) {
  std::vector<float> want;
  for (float x : xs) want.push_back(static_cast<float>(f(static_cast<double>(x))));
  EXPECT_TRUE(tensor_near(y, {static_cast<std::int64_t>(xs.size())}, want, 1e-6)) << what;
}
template <UnaryKind K>
void expect_unary(Unary<K> op, std::vector<float> const& xs, double (*f)(double)) {
  expect_values(unary_name(K), run1(op, {Tensor({static_cast<std::int64_t>(xs.size())}, xs)}), xs, f);
}

TEST(UnaryKernel, EveryKindAgainstTheStandardLibrary) {
  std::vector<float> any = {-3.5f, -1, -0.25f, 0, 0.5f, 2, 7};
  std::vector<float> positive = {0.125f, 0.5f, 1, 2.5f, 9};
  expect_unary(Relu{}, any, [](double x) { return x > 0 ? x : 0; });
  expect_unary(Sigmoid{}, any, [](double x) { return 1 / (1 + std::exp(-x)); });
  expect_unary(Tanh{}, any, [](double x) { return std::tanh(x); });
  expect_unary(Gelu{}, any, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); });
  expect_unary(Exp{}, any, [](double x) { return std::exp(x); });
  expect_unary(Log{}, positive, [](double x) { return std::log(x); });
  expect_unary(Sqrt{}, positive, [](double x) { return std::sqrt(x); });
  expect_unary(Erf{}, any, [](double x) { return std::erf(x); });
  expect_unary(Neg{}, any, [](double x) { return -x; });
  expect_unary(Abs{}, any, [](double x) { return std::fabs(x); });
  expect_unary(Reciprocal{}, positive, [](double x) { return 1 / x; });
  expect_unary(Reciprocal{}, {-4, -0.5f}, [](double x) { return 1 / x; });
  expect_unary(LeakyRelu{}, any, [](double x) { return x >= 0 ? x : 0.01 * x; });  // default alpha 0.01
  expect_unary(LeakyRelu{.alpha = 0.2f}, any, [](double x) { return x >= 0 ? x : 0.2 * x; });
  expect_unary(Clip{.alpha = -1, .beta = 2}, any, [](double x) { return std::min(std::max(x, -1.0), 2.0); });
  expect_unary(Clip{}, any, [](double x) { return x; });  // default bounds: the float range
  expect_unary(HardSigmoid{}, any, [](double x) { return std::clamp(0.2 * x + 0.5, 0.0, 1.0); });  // defaults 0.2, 0.5
  expect_unary(HardSigmoid{.alpha = 0.5f, .beta = 0.25f}, any, [](double x) { return std::clamp(0.5 * x + 0.25, 0.0, 1.0); });
  expect_unary(HardSwish{}, any, [](double x) { return x * std::clamp(x / 6 + 0.5, 0.0, 1.0); });
}

TEST(UnaryKernel, OutOfDomainGivesNaN) {
  EXPECT_TRUE(std::isnan(run1(Log{}, {Tensor({1}, {-1})}).data()[0]));
  EXPECT_TRUE(std::isnan(run1(Sqrt{}, {Tensor({1}, {-1})}).data()[0]));
  EXPECT_EQ(run1(Reciprocal{}, {Tensor({1}, {0.f})}).data()[0], std::numeric_limits<float>::infinity());
}

TEST(UnaryKernel, KeepsTheShape) {
  EXPECT_TRUE(tensor_near(run1(Neg{}, {Tensor({2, 1, 2}, {1, -2, 3, -4})}), {2, 1, 2}, {-1, 2, -3, 4}));
}

// ---- Scale, Identity ----------------------------------------------------------------------

TEST(ScaleKernel, MultipliesThenShifts) {
  // (1, 2, -3) * 2 + 1 = (3, 5, -5); 1 - x as scale -1, shift 1.
  EXPECT_TRUE(tensor_near(run1(Scale{.scale = 2, .shift = 1}, {Tensor({3}, {1, 2, -3})}), {3}, {3, 5, -5}));
  EXPECT_TRUE(tensor_near(run1(Scale{.scale = -1, .shift = 1}, {Tensor({2}, {0.25f, 3})}), {2}, {0.75f, -2}));
}

TEST(IdentityKernel, SharesStorage) {
  Tensor x({2, 2}, {1, 2, 3, 4});
  Tensor y = run1(Identity{}, {x});
  EXPECT_EQ(y.storage(), x.storage());
  EXPECT_TRUE(tensor_near(y, {2, 2}, {1, 2, 3, 4}));
}

}  // namespace
}  // namespace autograph
