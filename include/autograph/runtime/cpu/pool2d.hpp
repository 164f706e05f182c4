#pragma once
// Pool2D: max or average over clipped windows. A window covers rows [oh*sh - pad_top,
// + kernel); the part inside the input is pooled. Average pooling divides either by the part
// inside the *padded* input (count_include_pad; the full kernel except where a ceil_mode
// window runs past the end padding, as PyTorch does) or by the cells inside the input (ONNX's
// default). Max pooling ignores padded cells. Global pooling is one window the size of the image.
#include <algorithm>
#include <limits>

#include "autograph/core/tensor.hpp"
#include "autograph/ops/pool2d.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph::reference {

template <>
struct Kernel<Pool2D> {
  std::vector<Tensor> operator()(Pool2D const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Shape const& xs = in[0].shape();
    std::int64_t H = xs[2], W = xs[3], Ho = out[0].shape[2], Wo = out[0].shape[3];
    auto kernel = op.kernel;
    auto stride = op.stride;
    auto pad = op.pad;
    if (op.global) {
      kernel = {H, W};
      stride = {1, 1};
      pad = {};
    }
    Tensor y(out[0].shape);
    float const* x = in[0].ptr();
    float* yp = y.mutable_ptr();
    for (std::int64_t plane = 0; plane < xs[0] * xs[1]; ++plane) {
      float const* image = x + plane * H * W;
      for (std::int64_t oh = 0; oh < Ho; ++oh) {
        std::int64_t h0 = oh * stride[0] - pad[0];
        std::int64_t h_padded = std::min(h0 + kernel[0], H + pad[2]) - h0;  // window rows inside the padded input
        std::int64_t ha = std::max(h0, std::int64_t{0}), hb = std::min(h0 + kernel[0], H);
        for (std::int64_t ow = 0; ow < Wo; ++ow) {
          std::int64_t w0 = ow * stride[1] - pad[1];
          std::int64_t w_padded = std::min(w0 + kernel[1], W + pad[3]) - w0;
          std::int64_t wa = std::max(w0, std::int64_t{0}), wb = std::min(w0 + kernel[1], W);
          float& result = yp[(plane * Ho + oh) * Wo + ow];
          if (op.kind == PoolKind::max) {
            float m = -std::numeric_limits<float>::infinity();
            for (std::int64_t h = ha; h < hb; ++h)
              for (std::int64_t w = wa; w < wb; ++w) m = std::max(m, image[h * W + w]);
            result = m;
          } else {
            double sum = 0;  // double: a 2048-cell global window loses bits in float
            for (std::int64_t h = ha; h < hb; ++h)
              for (std::int64_t w = wa; w < wb; ++w) sum += image[h * W + w];
            std::int64_t count = op.count_include_pad ? h_padded * w_padded : (hb - ha) * (wb - wa);
            result = static_cast<float>(sum / static_cast<double>(count));
          }
        }
      }
    }
    return {std::move(y)};
  }
};

}  // namespace autograph::reference
