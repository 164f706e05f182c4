#pragma once
// Softmax along one axis, numerically stable: y = exp(x - max) / sum(exp(x - max)), the
// division done as one reciprocal per softmax row.
// The tensor is viewed as [outer, n, inner] (n the axis); for each outer block the inner
// positions are processed side by side so every pass reads memory in order.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/ops/softmax.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph::reference {

template <>
struct Kernel<Softmax> {
  std::vector<Tensor> operator()(Softmax const& op, std::span<Tensor const> in, std::span<TensorDesc const>) const {
    Shape const& xs = in[0].shape();
    std::size_t a = xs.normalize_axis(op.axis);
    std::int64_t n = xs[a], inner = 1;
    for (std::size_t d = a + 1; d < xs.rank(); ++d) inner *= xs[d];
    std::int64_t outer = n * inner == 0 ? 0 : xs.numel() / (n * inner);
    Tensor y(xs);
    std::vector<float> max(static_cast<std::size_t>(inner)), inv(max.size());
    std::vector<double> sum(static_cast<std::size_t>(inner));
    for (std::int64_t o = 0; o < outer; ++o) {
      float const* x = in[0].ptr() + o * n * inner;
      float* yp = y.mutable_ptr() + o * n * inner;
      std::fill(max.begin(), max.end(), -std::numeric_limits<float>::infinity());
      std::fill(sum.begin(), sum.end(), 0.0);
      for (std::int64_t k = 0; k < n; ++k)
        for (std::int64_t i = 0; i < inner; ++i) max[i] = std::max(max[i], x[k * inner + i]);
      for (std::int64_t k = 0; k < n; ++k)
        for (std::int64_t i = 0; i < inner; ++i) {
          float e = std::exp(x[k * inner + i] - max[i]);
          yp[k * inner + i] = e;
          sum[i] += e;
        }
      for (std::int64_t i = 0; i < inner; ++i) inv[i] = static_cast<float>(1.0 / sum[i]);
      for (std::int64_t k = 0; k < n; ++k)
        for (std::int64_t i = 0; i < inner; ++i) yp[k * inner + i] *= inv[i];
    }
    return {std::move(y)};
  }
};

}  // namespace autograph::reference
