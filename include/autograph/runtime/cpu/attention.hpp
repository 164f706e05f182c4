#pragma once
// FusedAttention's reference kernel: for each output batch matrix, the scores of one
// [Tq, Tk] block (q kT by the BLAS GEMM), scaled, masked and turned into probabilities row by
// row (the max subtracted, sums in double, as Kernel<Softmax>), then times v. It computes what
// the unfused subgraph MatMul -> Scale -> [Add] -> Softmax -> MatMul computes, one score
// matrix at a time rather than the whole score tensor.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/ops/fused_attention.hpp"
#include "autograph/runtime/cpu/gemm.hpp"
#include "autograph/runtime/cpu/strided.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph::reference {

template <>
struct Kernel<FusedAttention> {
  std::vector<Tensor> operator()(FusedAttention const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Shape const &qs = in[0].shape(), &ks = in[1].shape(), &vs = in[2].shape(), &ys = out[0].shape;
    std::size_t r = ys.rank();
    std::int64_t tq = qs[qs.rank() - 2], d = qs[qs.rank() - 1], tk = ks[ks.rank() - 1], dv = vs[vs.rank() - 1];
    Tensor y(ys);
    if (ys.numel() == 0) return {std::move(y)};
    Shape batch(ys.dims().first(r - 2));
    auto batch_of = [](Shape const& s) { return Shape(s.dims().first(s.rank() - 2)); };
    // The mask read as if broadcast to [batch..., Tq, Tk]: its batch strides, then row and column.
    bool masked = in.size() == 4;
    std::vector<std::int64_t> score_dims(batch.begin(), batch.end());
    score_dims.push_back(tq);
    score_dims.push_back(tk);
    cpu::Strides ms = masked ? cpu::broadcast_strides(in[3].shape(), Shape(score_dims)) : cpu::Strides{};
    std::int64_t m_row = ms[r - 2], m_col = ms[r - 1];
    float const *q = in[0].ptr(), *k = in[1].ptr(), *v = in[2].ptr(), *mask = masked ? in[3].ptr() : nullptr;
    float* yp = y.mutable_ptr();
    std::vector<float> p(static_cast<std::size_t>(tq * tk));
    cpu::for_each_index<5>(batch,
                           {cpu::scaled(strides_of(batch), tq * dv), cpu::scaled(cpu::broadcast_strides(batch_of(qs), batch), tq * d),
                            cpu::scaled(cpu::broadcast_strides(batch_of(ks), batch), d * tk),
                            cpu::scaled(cpu::broadcast_strides(batch_of(vs), batch), tk * dv), ms},
                           [&](auto const& o) {
                             cpu::gemm(tq, tk, d, q + o[1], d, k + o[2], tk, p.data(), tk);
                             for (std::int64_t i = 0; i < tq; ++i) {
                               float* row = p.data() + i * tk;
                               float max = -std::numeric_limits<float>::infinity();
                               for (std::int64_t j = 0; j < tk; ++j) {
                                 row[j] *= op.scale;
                                 if (masked) row[j] += mask[o[4] + i * m_row + j * m_col];
                                 max = std::max(max, row[j]);
                               }
                               double sum = 0;
                               for (std::int64_t j = 0; j < tk; ++j) sum += row[j] = std::exp(row[j] - max);
                               auto inv = static_cast<float>(1.0 / sum);
                               for (std::int64_t j = 0; j < tk; ++j) row[j] *= inv;
                             }
                             cpu::gemm(tq, dv, tk, p.data(), tk, v + o[3], dv, yp + o[0], dv);
                           });
    return {std::move(y)};
  }
};

}  // namespace autograph::reference
