#pragma once
// BatchNorm (inference, per channel of axis 1), LayerNorm (over the trailing axes) and
// AddLayerNorm (LayerNorm of a broadcast sum).
#include <algorithm>
#include <cmath>

#include "autograph/core/tensor.hpp"
#include "autograph/ops/add_layer_norm.hpp"
#include "autograph/ops/batch_norm.hpp"
#include "autograph/runtime/cpu/strided.hpp"
#include "autograph/ops/layer_norm.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph::reference {

/// y = (x - mean) / sqrt(var + eps) * scale + bias, as (x - mean) * a + bias with a per-channel
/// a = scale / sqrt(var + eps). (Folding the mean into the shift too would cancel badly when
/// x and mean are large and close.)
template <>
struct Kernel<BatchNorm> {
  std::vector<Tensor> operator()(BatchNorm const& op, std::span<Tensor const> in, std::span<TensorDesc const>) const {
    Shape const& xs = in[0].shape();
    std::int64_t N = xs[0], C = xs[1], inner = xs.numel() / std::max<std::int64_t>(N * C, 1);
    float const *x = in[0].ptr(), *scale = in[1].ptr(), *bias = in[2].ptr(), *mean = in[3].ptr(), *var = in[4].ptr();
    Tensor y(xs);
    float* yp = y.mutable_ptr();
    for (std::int64_t c = 0; c < C; ++c) {
      float a = scale[c] / std::sqrt(var[c] + op.epsilon);
      for (std::int64_t n = 0; n < N; ++n) {
        std::int64_t base = (n * C + c) * inner;
        for (std::int64_t i = 0; i < inner; ++i) yp[base + i] = (x[base + i] - mean[c]) * a + bias[c];
      }
    }
    return {std::move(y)};
  }
};

/// Each row x[r, :] over the normalised axes [axis, rank): y = (x - mean) / sqrt(var + eps) * gamma + beta,
/// with the biased variance (divide by the row length), as ONNX LayerNormalization.
template <>
struct Kernel<LayerNorm> {
  std::vector<Tensor> operator()(LayerNorm const& op, std::span<Tensor const> in, std::span<TensorDesc const>) const {
    Shape const& xs = in[0].shape();
    std::int64_t len = in[1].numel(), rows = len == 0 ? 0 : xs.numel() / len;
    float const *x = in[0].ptr(), *gamma = in[1].ptr(), *beta = in[2].ptr();
    Tensor y(xs);
    float* yp = y.mutable_ptr();
    for (std::int64_t r = 0; r < rows; ++r) {
      float const* row = x + r * len;
      // Two passes in double: the mean first, then the centred squares (no cancellation).
      double sum = 0;
      for (std::int64_t i = 0; i < len; ++i) sum += row[i];
      double mean = sum / static_cast<double>(len), sq = 0;
      for (std::int64_t i = 0; i < len; ++i) sq += (row[i] - mean) * (row[i] - mean);
      double inv_std = 1.0 / std::sqrt(sq / static_cast<double>(len) + op.epsilon);
      for (std::int64_t i = 0; i < len; ++i)
        yp[r * len + i] = static_cast<float>((row[i] - mean) * inv_std) * gamma[i] + beta[i];
    }
    return {std::move(y)};
  }
};

/// The sum (NumPy broadcasting), then Kernel<LayerNorm> of it; the sum is output 1 when kept.
template <>
struct Kernel<AddLayerNorm> {
  std::vector<Tensor> operator()(AddLayerNorm const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Shape const& ys = out[0].shape;
    Tensor sum(ys);
    float const *a = in[0].ptr(), *b = in[1].ptr();
    float* s = sum.mutable_ptr();
    cpu::for_each_index<3>(ys, {strides_of(ys), cpu::broadcast_strides(in[0].shape(), ys), cpu::broadcast_strides(in[1].shape(), ys)},
                           [&](auto const& o) { s[o[0]] = a[o[1]] + b[o[2]]; });
    Tensor ln_in[] = {sum, in[2], in[3]};
    std::vector<Tensor> y = Kernel<LayerNorm>{}(op.norm(), ln_in, out.first(1));
    if (op.keep_sum) y.push_back(std::move(sum));
    return y;
  }
};

}  // namespace autograph::reference
