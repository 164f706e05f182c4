#pragma once
// Resize, one axis at a time. Nearest, linear and cubic interpolation are tensor products of
// one-dimensional filters, so resizing axis by axis computes what the N-dimensional
// definition does (ONNX's reference interpolates axis 0 over the results of the inner axes).
// For each output coordinate along an axis a small tap table says which input positions it
// reads and with what weights; then every line along that axis is filtered with the table.
//
// Taps follow the ONNX reference: with x the input coordinate and x0 the largest integer
// below x (x - 1 when x is an integer), ratio = x - x0 in (0, 1]; linear reads x0, x0+1 with
// weights (1 - ratio, ratio); cubic reads x0-1 .. x0+2 with Keys' kernel of parameter A;
// nearest reads x0 or x0+1 by the rounding mode. Positions outside the input read the edge
// value, or get weight 0 with exclude_outside (the weights are then renormalised).
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/ops/resize.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph::cpu {

struct ResizeTaps {
  std::vector<std::int64_t> index;  // taps_per_output entries per output position, clamped to the input
  std::vector<double> weight;
  std::vector<char> outside;  // tf_crop_and_resize: the output position maps outside the input
  std::size_t taps = 0;
};

/// The input coordinate that output position y maps to along one axis.
inline double resize_source_coordinate(Resize const& op, std::size_t axis, std::int64_t y, std::int64_t n_in, double scale) {
  double out_len = scale * static_cast<double>(n_in), yd = static_cast<double>(y);
  switch (op.coordinate) {
    case ResizeCoordinate::half_pixel: return (yd + 0.5) / scale - 0.5;
    case ResizeCoordinate::pytorch_half_pixel: return out_len > 1 ? (yd + 0.5) / scale - 0.5 : -0.5;
    case ResizeCoordinate::align_corners: return out_len == 1 ? 0.0 : yd * static_cast<double>(n_in - 1) / (out_len - 1);
    case ResizeCoordinate::asymmetric: return yd / scale;
    case ResizeCoordinate::tf_half_pixel_for_nn: return (yd + 0.5) / scale;
    case ResizeCoordinate::tf_crop_and_resize: {
      double start = op.roi[axis], end = op.roi[op.sizes.size() + axis], span = static_cast<double>(n_in - 1);
      double x = out_len == 1 ? (end - start) * span / 2 : yd * (end - start) * span / (out_len - 1);
      return x + start * span;
    }
  }
  return 0;
}

inline ResizeTaps resize_taps(Resize const& op, std::size_t axis, std::int64_t n_in, std::int64_t n_out) {
  double scale = op.scale(axis, n_in);
  ResizeTaps t;
  t.taps = op.mode == ResizeMode::cubic ? 4 : 2;
  t.index.resize(static_cast<std::size_t>(n_out) * t.taps);
  t.weight.resize(t.index.size());
  t.outside.resize(static_cast<std::size_t>(n_out));
  for (std::int64_t y = 0; y < n_out; ++y) {
    double x = resize_source_coordinate(op, axis, y, n_in, scale);
    std::size_t at = static_cast<std::size_t>(y) * t.taps;
    if (op.coordinate == ResizeCoordinate::tf_crop_and_resize && (x < 0 || x > static_cast<double>(n_in - 1))) {
      t.outside[static_cast<std::size_t>(y)] = 1;
      continue;
    }
    double fl = std::floor(x);
    bool integral = fl == x;
    double ratio = integral ? 1.0 : x - fl;
    std::int64_t x0 = static_cast<std::int64_t>(fl) - (integral ? 1 : 0);
    std::array<double, 4> w{};
    std::int64_t first = x0;
    switch (op.mode) {
      case ResizeMode::nearest: {
        bool up = integral;
        if (!integral) switch (op.nearest) {
            case ResizeNearest::round_prefer_floor: up = ratio > 0.5; break;
            case ResizeNearest::round_prefer_ceil: up = ratio >= 0.5; break;
            case ResizeNearest::floor: up = false; break;
            case ResizeNearest::ceil: up = true; break;
          }
        w = {up ? 0.0 : 1.0, up ? 1.0 : 0.0};
        break;
      }
      case ResizeMode::linear: w = {1 - ratio, ratio}; break;
      case ResizeMode::cubic: {
        double a = op.cubic_coeff_a, r = ratio, q = 1 - ratio;
        w = {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a, ((a + 2) * r - (a + 3)) * r * r + 1,
             ((a + 2) * q - (a + 3)) * q * q + 1, ((a * (q + 1) - 5 * a) * (q + 1) + 8 * a) * (q + 1) - 4 * a};
        first = x0 - 1;
        break;
      }
    }
    if (op.exclude_outside) {
      double sum = 0;
      for (std::size_t k = 0; k < t.taps; ++k) {
        std::int64_t i = first + static_cast<std::int64_t>(k);
        if (i < 0 || i >= n_in) w[k] = 0;
        sum += w[k];
      }
      if (sum != 0)
        for (std::size_t k = 0; k < t.taps; ++k) w[k] /= sum;
    }
    for (std::size_t k = 0; k < t.taps; ++k) {
      t.index[at + k] = std::clamp<std::int64_t>(first + static_cast<std::int64_t>(k), 0, n_in - 1);
      t.weight[at + k] = w[k];
    }
  }
  return t;
}

/// Resizes axis `axis` of x to n_out positions.
inline Tensor resize_axis(Resize const& op, Tensor const& x, std::size_t axis, std::int64_t n_out) {
  Shape xs = x.shape(), ys = xs;
  ys[axis] = n_out;
  std::int64_t n_in = xs[axis], inner = 1, outer = 1;
  for (std::size_t d = axis + 1; d < xs.rank(); ++d) inner *= xs[d];
  for (std::size_t d = 0; d < axis; ++d) outer *= xs[d];
  ResizeTaps taps = resize_taps(op, axis, n_in, n_out);
  Tensor y(ys);
  float const* src = x.ptr();
  float* dst = y.mutable_ptr();
  std::vector<double> acc(static_cast<std::size_t>(inner));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < n_out; ++j) {
      float* line = dst + (o * n_out + j) * inner;
      if (taps.outside[static_cast<std::size_t>(j)]) {
        std::fill(line, line + inner, op.extrapolation_value);
        continue;
      }
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::size_t k = 0; k < taps.taps; ++k) {
        std::size_t at = static_cast<std::size_t>(j) * taps.taps + k;
        double w = taps.weight[at];
        if (w == 0) continue;
        float const* from = src + (o * n_in + taps.index[at]) * inner;
        for (std::int64_t i = 0; i < inner; ++i) acc[static_cast<std::size_t>(i)] += w * from[i];
      }
      for (std::int64_t i = 0; i < inner; ++i) line[i] = static_cast<float>(acc[static_cast<std::size_t>(i)]);
    }
  return y;
}

}  // namespace autograph::cpu

namespace autograph::reference {

/// Axes whose size, scale and coordinate map leave them unchanged are skipped (a resize that
/// changes nothing shares its input's storage, like Identity).
template <>
struct Kernel<Resize> {
  std::vector<Tensor> operator()(Resize const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Tensor y = in[0];
    Shape const& xs = in[0].shape();
    for (std::size_t d = 0; d < xs.rank(); ++d) {
      bool unchanged = out[0].shape[d] == xs[d] && op.scale(d, xs[d]) == 1.0 && op.coordinate != ResizeCoordinate::tf_half_pixel_for_nn &&
                       (op.coordinate != ResizeCoordinate::tf_crop_and_resize || (op.roi[d] == 0 && op.roi[xs.rank() + d] == 1));
      if (!unchanged) y = cpu::resize_axis(op, y, d, out[0].shape[d]);
    }
    return {std::move(y)};
  }
};

}  // namespace autograph::reference
