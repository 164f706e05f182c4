// The elementwise ops on the CPU runtime against the reference kernels.
#include "cpu/kernel_harness.hpp"

namespace autograph::cpu {
namespace {

using namespace testing;

// ---- elementwise ----------------------------------------------------------------------------

template <class Op>
void expect_binary_matches(float lo = -1.f, float hi = 1.f) {
  auto two = [&](Shape a, Shape b, std::uint64_t seed) { expect_matches(Op{}, {rnd(a, seed, lo, hi), rnd(b, seed + 1, lo, hi)}); };
  two({2, 3, 4, 5}, {2, 3, 4, 5}, 40);  // same shapes
  two({2, 3, 4, 5}, {3, 1, 5}, 42);     // b broadcast
  two({5}, {2, 3, 4, 5}, 44);           // a broadcast
  two({2, 1, 4, 1}, {1, 3, 1, 5}, 46);  // both broadcast
  two({4, 1}, {1, 1, 3, 4, 5}, 56);     // a broadcast, a batch of 1 first
  two({2, 3}, {}, 48);                  // a scalar
  two({}, {}, 50);
}
TEST(CpuBinary, Add) { expect_binary_matches<Add>(); }
TEST(CpuBinary, Sub) { expect_binary_matches<Sub>(); }
TEST(CpuBinary, Mul) { expect_binary_matches<Mul>(); }
TEST(CpuBinary, Div) { expect_binary_matches<Div>(0.5f, 2.f); }
TEST(CpuBinary, Pow) { expect_binary_matches<Pow>(0.5f, 2.f); }
TEST(CpuBinary, Max) { expect_binary_matches<Max>(); }
TEST(CpuBinary, Min) { expect_binary_matches<Min>(); }

template <class Op>
void expect_unary_matches(Op const& op, float lo = -4.f, float hi = 4.f) {
  expect_matches(op, {rnd({2, 3, 17, 5}, 52, lo, hi)});
  expect_matches(op, {rnd({}, 53, lo, hi)});
}
TEST(CpuUnary, EveryKind) {
  expect_unary_matches(Relu{});
  expect_unary_matches(Sigmoid{});
  expect_unary_matches(Tanh{});
  expect_unary_matches(Gelu{});
  expect_unary_matches(Exp{});
  expect_unary_matches(Log{}, 0.01f, 10.f);
  expect_unary_matches(Sqrt{}, 0.f, 10.f);
  expect_unary_matches(Erf{});
  expect_unary_matches(Neg{});
  expect_unary_matches(Abs{});
  expect_unary_matches(Reciprocal{}, 0.25f, 4.f);
  expect_unary_matches(Reciprocal{}, -4.f, -0.25f);
  expect_unary_matches(LeakyRelu{});
  expect_unary_matches(LeakyRelu{.alpha = 0.3f});
  expect_unary_matches(Clip{});
  expect_unary_matches(Clip{.alpha = -1.f, .beta = 2.5f});
  expect_unary_matches(HardSigmoid{});
  expect_unary_matches(HardSigmoid{.alpha = 0.1666667f, .beta = 0.4f});
  expect_unary_matches(HardSwish{});
  expect_unary_matches(Scale{.scale = -2.5f, .shift = 0.75f});
}
TEST(CpuUnary, IdentityAndReshapeCopy) {
  expect_matches(Identity{}, {rnd({3, 4, 5}, 54)});
  expect_matches(Reshape{.shape = {4, -1}}, {rnd({3, 4, 5}, 55)});
}

}  // namespace
}  // namespace autograph::cpu
