#pragma once
// Resize (ONNX Resize, opset 11-18 without antialias): nearest, N-linear or cubic
// interpolation of any axes to a fixed output shape.
//
// An output coordinate y along an axis maps to an input coordinate x by the coordinate
// transformation, with length_out = scale * length_in (a real number when the scale was
// given, as in ONNX):
//   half_pixel          x = (y + 0.5) / scale - 0.5
//   pytorch_half_pixel  x = length_out > 1 ? (y + 0.5) / scale - 0.5 : -0.5
//   align_corners       x = length_out == 1 ? 0 : y * (length_in - 1) / (length_out - 1)
//   asymmetric          x = y / scale
//   tf_half_pixel_for_nn x = (y + 0.5) / scale
//   tf_crop_and_resize  x = roi_start * (length_in - 1) + y * (roi_end - roi_start) * (length_in - 1) / (length_out - 1)
//                       (outside [0, length_in - 1]: extrapolation_value)
#include <cmath>
#include <tuple>
#include <vector>

#include "autograph/ops/operator.hpp"

namespace autograph {

enum class ResizeMode : std::uint8_t { nearest, linear, cubic };
enum class ResizeCoordinate : std::uint8_t {
  half_pixel, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn, tf_crop_and_resize
};
enum class ResizeNearest : std::uint8_t { round_prefer_floor, round_prefer_ceil, floor, ceil };

constexpr std::string_view to_string(ResizeMode m) {
  constexpr std::string_view names[] = {"nearest", "linear", "cubic"};
  return names[static_cast<int>(m)];
}
constexpr std::string_view to_string(ResizeCoordinate c) {
  constexpr std::string_view names[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
                                        "tf_crop_and_resize"};
  return names[static_cast<int>(c)];
}
constexpr std::string_view to_string(ResizeNearest n) {
  constexpr std::string_view names[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  return names[static_cast<int>(n)];
}

struct Resize {
  static constexpr std::string_view name = "Resize";
  static constexpr Arity arity{1, 1};
  std::vector<std::int64_t> sizes{};  // the output shape, one entry per input dimension
  std::vector<double> scales{};     // the scale per dimension when the model gave scales; empty: sizes / input
  ResizeMode mode = ResizeMode::nearest;
  ResizeCoordinate coordinate = ResizeCoordinate::half_pixel;
  ResizeNearest nearest = ResizeNearest::round_prefer_floor;
  float cubic_coeff_a = -0.75f;
  bool exclude_outside = false;
  float extrapolation_value = 0.f;
  std::vector<double> roi{};  // tf_crop_and_resize: starts then ends, normalised, one per dimension each

  auto params() const { return std::tuple{sizes, scales, mode, coordinate, nearest, cubic_coeff_a, exclude_outside, extrapolation_value, roi}; }
  bool operator==(Resize const&) const = default;

  /// The scale of dimension d for an input of length n along it.
  double scale(std::size_t d, std::int64_t n) const {
    return scales.empty() ? static_cast<double>(sizes[d]) / static_cast<double>(n) : scales[d];
  }

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    auto const& x = in[0].shape;
    auto fail = [&](std::string const& why) { throw ShapeError("Resize of " + x.to_string() + " to [" + detail::ints(sizes) + "]: " + why); };
    if (sizes.size() != x.rank()) fail("needs one output size per dimension");
    if (!scales.empty() && scales.size() != x.rank()) fail("needs one scale per dimension");
    for (std::size_t d = 0; d < x.rank(); ++d) {
      if (sizes[d] < 1) fail("output sizes must be >= 1");
      if (x[d] < 1) fail("cannot resize an empty dimension");
      if (!scales.empty() && !(scales[d] > 0 && std::isfinite(scales[d]))) fail("scales must be positive");
    }
    if (coordinate == ResizeCoordinate::tf_crop_and_resize && roi.size() != 2 * x.rank())
      fail("tf_crop_and_resize needs a roi of " + std::to_string(2 * x.rank()) + " values");
    return {TensorDesc{Shape(sizes), in[0].dtype}};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const> out) const {
    double taps = mode == ResizeMode::nearest ? 1 : mode == ResizeMode::linear ? 2 : 4;
    return static_cast<double>(out[0].numel()) * taps * static_cast<double>(out[0].shape.rank());
  }
  std::string attributes() const {
    return std::string(to_string(mode)) + " " + std::string(to_string(coordinate)) + " [" + detail::ints(sizes) + "]";
  }
};

}  // namespace autograph
