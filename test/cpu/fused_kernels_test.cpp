// The fused transformer ops on the CPU runtime: MatMul's bias and GELU (oneDNN matmul with its
// bias argument and a gelu_erf post-op), AddLayerNorm (oneDNN binary add, then its layer
// normalisation), against the reference kernels. FusedAttention (the tiled kernel of cpu/tuned/)
// has its own file, fused_attention_kernel_test.cpp.
#include <autograph/cpu/lower.hpp>
#include <autograph/graph/builder.hpp>

#include "cpu/kernel_harness.hpp"

namespace autograph::cpu {
namespace {

using namespace testing;

static_assert(HasCpuKernel<AddLayerNorm> && HasCpuKernel<MatMul> && HasCpuKernel<FusedAttention>);

TEST(CpuMatMulBias, BiasAndActivationsInTheMatMul) {
  for (Activation act : {Activation::none, Activation::relu, Activation::gelu})
    expect_matches(MatMul{act}, {rnd({2, 5, 8}, 1, -2.f, 2.f), rnd({8, 6}, 2), rnd({6}, 3)}, {0, 1, 1});  // a linear layer
  expect_matches(MatMul{Activation::gelu}, {rnd({2, 3, 4}, 4), rnd({2, 4, 5}, 5), rnd({5}, 6)});       // computed operands
  expect_matches(MatMul{Activation::gelu}, {rnd({3, 0}, 7), rnd({0, 4}, 8), rnd({4}, 9)});             // K = 0: act(bias)
  expect_matches(MatMul{Activation::gelu}, {rnd({4, 6}, 10, -4.f, 4.f), rnd({6, 7}, 11)});             // GELU without a bias
}

TEST(CpuAddLayerNorm, KeptOrNotAndEveryBroadcast) {
  for (bool keep : {false, true}) {
    AddLayerNorm op{-1, 1e-6f, keep};
    auto norm = [](std::int64_t c, std::uint64_t s) { return std::vector<Tensor>{rnd({c}, s), rnd({c}, s + 1)}; };
    auto with = [](std::vector<Tensor> ab, std::vector<Tensor> gb) {
      ab.insert(ab.end(), gb.begin(), gb.end());
      return ab;
    };
    expect_matches(op, with({rnd({2, 5, 16}, 20, -3.f, 3.f), rnd({2, 5, 16}, 21)}, norm(16, 22)));  // a residual
    expect_matches(op, with({rnd({2, 5, 16}, 23), rnd({1, 5, 16}, 24)}, norm(16, 25)));              // + position embedding
    expect_matches(op, with({rnd({5, 16}, 26), rnd({3, 5, 16}, 27)}, norm(16, 28)));                 // the first operand broadcasts
    expect_matches(op, with({rnd({2, 1, 16}, 29), rnd({1, 5, 16}, 30)}, norm(16, 31)));              // both do: our own loop
    expect_matches(AddLayerNorm{1, 1e-5f, keep}, with({rnd({3, 4, 5}, 32), rnd({3, 4, 5}, 33)}, {rnd({4, 5}, 34), rnd({4, 5}, 35)}));
  }
}

}  // namespace
}  // namespace autograph::cpu
