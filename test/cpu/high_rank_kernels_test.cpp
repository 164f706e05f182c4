// Tensors of rank up to Shape::max_rank (8) on the CPU kernels: oneDNN's primitives take
// fewer dimensions for some ops, which the kernels must fold or do themselves.
#include "cpu/kernel_harness.hpp"

namespace autograph::cpu {
namespace {

using namespace testing;

TEST(CpuHighRank, Binary) {
  expect_matches(Add{}, {rnd({2, 3, 2, 2, 3, 2, 2, 3}, 1), rnd({3, 1, 2, 1, 2, 1, 3}, 2)});
  expect_matches(Mul{}, {rnd({2, 1, 2, 2, 3, 2, 2, 3}, 3), rnd({2, 3, 2, 2, 3, 2, 2, 3}, 4)});
}
TEST(CpuHighRank, Reduce) {
  expect_matches(Reduce{.kind = ReduceKind::sum, .axes = {0, 2, 4, 6}}, {rnd({2, 3, 2, 2, 3, 2, 2, 3}, 5)});
  expect_matches(Reduce{.kind = ReduceKind::mean, .axes = {1, 3, 5, 7}, .keepdims = false}, {rnd({2, 3, 2, 2, 3, 2, 2, 3}, 6)});
}
TEST(CpuHighRank, ConcatSoftmaxMatMulTranspose) {
  expect_matches(Concat{.axis = 5}, {rnd({2, 1, 2, 2, 3, 2, 2, 3}, 7), rnd({2, 1, 2, 2, 3, 1, 2, 3}, 8)});
  expect_matches(Softmax{.axis = 4}, {rnd({2, 1, 2, 2, 3, 2, 2, 3}, 9)});
  expect_matches(MatMul{}, {rnd({2, 1, 2, 1, 2, 3, 4, 5}, 10), rnd({3, 1, 2, 2, 1, 5, 3}, 11)});
  expect_matches(Transpose{.perm = {7, 6, 5, 4, 3, 2, 1, 0}}, {rnd({2, 3, 2, 2, 3, 2, 2, 3}, 12)});
  expect_matches(Pad{.pads = {0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0}}, {rnd({2, 3, 2, 2, 3, 2, 2, 3}, 13)});
  expect_matches(Split{.axis = 6, .sizes = {1, 1}}, {rnd({2, 3, 2, 2, 3, 2, 2, 3}, 14)});
}

}  // namespace
}  // namespace autograph::cpu
