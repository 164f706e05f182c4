#pragma once
// ConvTranspose2D as GEMM + col2im, the mirror image of Conv2D's im2col + GEMM: for one image
// and group g, every input pixel's contributions to the output form a column,
//   col_g[Mg*R*S, H*W] = w_g^T[Mg*R*S, Cg] x x_g[Cg, H*W],
// and col2im adds each column entry into the output pixel it lands on:
//   y[m][h*sh - pad_top + r*dh][w*sw - pad_left + s*dw] += col[(m*R + r)*S + s][h*W + w].
#include <algorithm>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/ops/conv_transpose.hpp"
#include "autograph/runtime/cpu/gemm.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph::cpu {

/// Adds the columns of one group into y[M, Ho, Wo] (positions cropped by the padding are dropped).
inline void col2im(float const* col, std::int64_t M, std::int64_t H, std::int64_t W, std::int64_t R, std::int64_t S, std::int64_t Ho,
                   std::int64_t Wo, ConvTranspose2D const& op, float* y) {
  auto [sh, sw] = op.stride;
  auto [dh, dw] = op.dilation;
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t r = 0; r < R; ++r)
      for (std::int64_t s = 0; s < S; ++s) {
        float const* row = col + ((m * R + r) * S + s) * H * W;
        float* plane = y + m * Ho * Wo;
        for (std::int64_t h = 0; h < H; ++h) {
          std::int64_t oh = h * sh - op.pad[0] + r * dh;
          if (oh < 0 || oh >= Ho) continue;
          for (std::int64_t w = 0; w < W; ++w) {
            std::int64_t ow = w * sw - op.pad[1] + s * dw;
            if (ow >= 0 && ow < Wo) plane[oh * Wo + ow] += row[h * W + w];
          }
        }
      }
}

}  // namespace autograph::cpu

namespace autograph::reference {

template <>
struct Kernel<ConvTranspose2D> {
  std::vector<Tensor> operator()(ConvTranspose2D const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Shape const& xs = in[0].shape();
    Shape const& ws = in[1].shape();
    std::int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3];
    std::int64_t G = op.groups, Cg = C / G, Mg = ws[1], R = ws[2], S = ws[3], M = Mg * G;
    std::int64_t Ho = out[0].shape[2], Wo = out[0].shape[3];
    std::int64_t field = Mg * R * S, pixels = H * W;
    if (out[0].numel() == 0) return {Tensor(out[0].shape)};  // nothing to compute: no transposed weights or columns either

    // w[C, Mg*R*S] holds w_g as rows [g*Cg, (g+1)*Cg); gemm wants w_g^T, so transpose it once.
    std::vector<float> wt(static_cast<std::size_t>(C * field));
    float const* w = in[1].ptr();
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t f = 0; f < field; ++f) wt[static_cast<std::size_t>((c / Cg) * field * Cg + f * Cg + c % Cg)] = w[c * field + f];

    std::vector<float> col(static_cast<std::size_t>(field * pixels));
    Tensor y(out[0].shape);
    for (std::int64_t n = 0; n < N; ++n) {
      float* yn = y.mutable_ptr() + n * M * Ho * Wo;
      for (std::int64_t g = 0; g < G; ++g) {
        float const* xg = in[0].ptr() + (n * C + g * Cg) * pixels;
        cpu::gemm(field, pixels, Cg, wt.data() + g * field * Cg, Cg, xg, pixels, col.data(), pixels);
        cpu::col2im(col.data(), Mg, H, W, R, S, Ho, Wo, op, yn + g * Mg * Ho * Wo);
      }
      if (in.size() == 3) cpu::bias_activation(yn, M, Ho * Wo, in[2].ptr(), Activation::none);
    }
    return {std::move(y)};
  }
};

}  // namespace autograph::reference
