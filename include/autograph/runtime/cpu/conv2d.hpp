#pragma once
// Conv2D as im2col + GEMM per group (the way Caffe and cuDNN's IMPLICIT_GEMM see it): the
// receptive fields of one image become the columns of a matrix, and the convolution of group
// g is  y_g[Kg, Ho*Wo] = w_g[Kg, Cg*R*S] x col_g[Cg*R*S, Ho*Wo].  A 1x1 stride-1 unpadded
// convolution needs no im2col: the image already is that matrix.
#include <algorithm>
#include <memory>
#include <utility>

#include "autograph/core/tensor.hpp"
#include "autograph/ops/conv2d.hpp"
#include "autograph/runtime/cpu/gemm.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph::cpu {

/// The output positions o in [0, n_out), as a half-open range [first, last), whose input
/// coordinate o * stride + offset lies inside [0, n_in). Lets sliding-window loops skip the
/// padding without a bounds test per element.
inline std::pair<std::int64_t, std::int64_t> valid_range(std::int64_t offset, std::int64_t stride, std::int64_t n_in,
                                                         std::int64_t n_out) {
  auto ceil_div = [](std::int64_t a, std::int64_t b) { return a <= 0 ? std::int64_t{0} : (a + b - 1) / b; };
  std::int64_t first = std::min(ceil_div(-offset, stride), n_out);  // first o with o*stride + offset >= 0
  std::int64_t last = std::min(ceil_div(n_in - offset, stride), n_out);  // first o with o*stride + offset >= n_in
  return {first, std::max(first, last)};
}

/// Receptive fields of one image x[C,H,W] as columns, zero in the padding:
///   col[(c*R + r)*S + s][oh*Wo + ow] = x[c][oh*sh - pad_top + r*dh][ow*sw - pad_left + s*dw].
/// @pre col holds C*R*S*Ho*Wo floats
inline void im2col(float const* x, std::int64_t C, std::int64_t H, std::int64_t W, std::int64_t R, std::int64_t S, std::int64_t Ho,
                   std::int64_t Wo, Conv2D const& op, float* col) {
  auto [sh, sw] = op.stride;
  auto [dh, dw] = op.dilation;
  for (std::int64_t c = 0; c < C; ++c)
    for (std::int64_t r = 0; r < R; ++r)
      for (std::int64_t s = 0; s < S; ++s) {
        float* row = col + ((c * R + r) * S + s) * Ho * Wo;
        std::int64_t h_off = r * dh - op.pad[0], w_off = s * dw - op.pad[1];
        auto [oh0, oh1] = valid_range(h_off, sh, H, Ho);
        auto [ow0, ow1] = valid_range(w_off, sw, W, Wo);
        std::fill(row, row + oh0 * Wo, 0.f);
        std::fill(row + oh1 * Wo, row + Ho * Wo, 0.f);
        for (std::int64_t oh = oh0; oh < oh1; ++oh) {
          float* dst = row + oh * Wo;
          float const* src = x + (c * H + oh * sh + h_off) * W + w_off;  // src[ow * sw] is the input under ow
          std::fill(dst, dst + ow0, 0.f);
          std::fill(dst + ow1, dst + Wo, 0.f);
          if (sw == 1)
            std::copy(src + ow0, src + ow1, dst + ow0);
          else
            for (std::int64_t ow = ow0; ow < ow1; ++ow) dst[ow] = src[ow * sw];
        }
      }
}

}  // namespace autograph::cpu

namespace autograph::reference {

template <>
struct Kernel<Conv2D> {
  std::vector<Tensor> operator()(Conv2D const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Shape const& xs = in[0].shape();
    Shape const& ws = in[1].shape();
    std::int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3];
    std::int64_t K = ws[0], Cg = ws[1], R = ws[2], S = ws[3];
    std::int64_t Ho = out[0].shape[2], Wo = out[0].shape[3];
    std::int64_t G = op.groups, Kg = K / G, field = Cg * R * S, pixels = Ho * Wo;
    float const* bias = in.size() == 3 ? in[2].ptr() : nullptr;
    if (out[0].numel() == 0) return {Tensor(out[0].shape)};  // nothing to compute: no im2col scratch either

    bool direct = R == 1 && S == 1 && op.stride == std::array<std::int64_t, 2>{1, 1} && op.pad == std::array<std::int64_t, 4>{};
    std::unique_ptr<float[]> col;
    if (!direct) col = std::make_unique_for_overwrite<float[]>(static_cast<std::size_t>(C * R * S * pixels));

    Tensor y(out[0].shape);
    for (std::int64_t n = 0; n < N; ++n) {
      float const* image = in[0].ptr() + n * C * H * W;
      float const* cols = image;  // [C*R*S, Ho*Wo]; group g owns rows [g*field, (g+1)*field)
      if (!direct) {
        cpu::im2col(image, C, H, W, R, S, Ho, Wo, op, col.get());
        cols = col.get();
      }
      float* yn = y.mutable_ptr() + n * K * pixels;
      for (std::int64_t g = 0; g < G; ++g)
        cpu::gemm(Kg, pixels, field, in[1].ptr() + g * Kg * field, field, cols + g * field * pixels, pixels, yn + g * Kg * pixels, pixels);
      cpu::bias_activation(yn, K, pixels, bias, op.act);
    }
    return {std::move(y)};
  }
};

}  // namespace autograph::reference
