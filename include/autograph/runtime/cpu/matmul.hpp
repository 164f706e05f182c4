#pragma once
// MatMul: one GEMM per output batch matrix, the batch dimensions of a and b broadcast
// (NumPy), then the bias (per column) and the activation. When b is a plain matrix, a's batch is folded into its rows: one GEMM
// [batch*M, K] x [K, N], the common case of a linear layer over a sequence.
#include "autograph/core/tensor.hpp"
#include "autograph/ops/matmul.hpp"
#include "autograph/runtime/cpu/gemm.hpp"
#include "autograph/runtime/cpu/strided.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph::reference {

template <>
struct Kernel<MatMul> {
  std::vector<Tensor> operator()(MatMul const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Shape const& as = in[0].shape();
    Shape const& bs = in[1].shape();
    Shape const& ys = out[0].shape;
    std::size_t r = ys.rank();
    std::int64_t M = ys[r - 2], N = ys[r - 1], K = as[as.rank() - 1];
    Tensor y(ys);
    float const* a = in[0].ptr();
    float const* b = in[1].ptr();
    float* c = y.mutable_ptr();
    if (ys.numel() == 0) return {std::move(y)};
    if (bs.rank() == 2) {
      cpu::gemm(ys.numel() / N, N, K, a, K, b, N, c, N);
    } else {
      Shape batch(ys.dims().first(r - 2));
      Shape a_batch(as.dims().first(as.rank() - 2)), b_batch(bs.dims().first(bs.rank() - 2));
      cpu::for_each_index<3>(batch,
                             {cpu::scaled(strides_of(batch), M * N), cpu::scaled(cpu::broadcast_strides(a_batch, batch), M * K),
                              cpu::scaled(cpu::broadcast_strides(b_batch, batch), K * N)},
                             [&](auto const& o) { cpu::gemm(M, N, K, a + o[1], K, b + o[2], N, c + o[0], N); });
    }
    if (in.size() == 3) {  // bias_activation adds one bias per row: here one per column
      float const* bias = in[2].ptr();
      for (std::int64_t r0 = 0; r0 < ys.numel() / N; ++r0)
        for (std::int64_t j = 0; j < N; ++j) c[r0 * N + j] += bias[j];
    }
    cpu::bias_activation(c, ys.numel() / N, N, nullptr, op.act);
    return {std::move(y)};
  }
};

}  // namespace autograph::reference
