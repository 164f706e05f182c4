#pragma once
// 2-D transposed convolution (the gradient of Conv2D with respect to its input; ONNX
// ConvTranspose, PyTorch ConvTranspose2d), NCHW: inputs x[N,C,H,W], w[C,M/groups,R,S],
// optional bias[M]. Every input pixel scatters a weighted kernel into the output:
//   out = stride * (in - 1) + output_padding + dilation * (k - 1) + 1 - pad_begin - pad_end.
#include <array>
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

struct ConvTranspose2D {
  static constexpr std::string_view name = "ConvTranspose2D";
  static constexpr Arity arity{2, 3};
  std::array<std::int64_t, 2> stride{1, 1};
  std::array<std::int64_t, 4> pad{0, 0, 0, 0};  // top, left, bottom, right: cropped from the full output
  std::array<std::int64_t, 2> dilation{1, 1};
  std::array<std::int64_t, 2> output_padding{0, 0};  // extra rows/columns at the bottom/right (only bias lands there)
  std::int64_t groups = 1;

  auto params() const { return std::tuple{stride, pad, dilation, output_padding, groups}; }
  bool operator==(ConvTranspose2D const&) const = default;

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    detail::check_rank<ConvTranspose2D>(in, 0, 4, "x");
    detail::check_rank<ConvTranspose2D>(in, 1, 4, "weight");
    detail::check_same_dtype<ConvTranspose2D>(in);
    auto const& x = in[0].shape;
    auto const& w = in[1].shape;
    auto fail = [&](std::string const& why) {
      throw ShapeError("ConvTranspose2D x=" + x.to_string() + " w=" + w.to_string() + ": " + why);
    };
    if (stride[0] < 1 || stride[1] < 1 || dilation[0] < 1 || dilation[1] < 1) fail("stride and dilation must be >= 1");
    for (auto p : pad)
      if (p < 0) fail("padding must be >= 0");
    if (output_padding[0] < 0 || output_padding[1] < 0) fail("output_padding must be >= 0");
    if (groups < 1) fail("groups must be >= 1");
    if (w[0] != x[1]) fail("weight expects " + std::to_string(w[0]) + " input channels, x has " + std::to_string(x[1]));
    if (x[1] % groups != 0) fail("input channels " + std::to_string(x[1]) + " not divisible by groups " + std::to_string(groups));
    std::int64_t m = w[1] * groups;
    if (in.size() == 3 && in[2].shape != Shape{m}) fail("bias must be [" + std::to_string(m) + "], got " + in[2].shape.to_string());
    std::int64_t ho = stride[0] * (x[2] - 1) + output_padding[0] + dilation[0] * (w[2] - 1) + 1 - pad[0] - pad[2];
    std::int64_t wo = stride[1] * (x[3] - 1) + output_padding[1] + dilation[1] * (w[3] - 1) + 1 - pad[1] - pad[3];
    if (x[2] < 1 || x[3] < 1) fail("cannot transpose-convolve an image with no rows or columns");
    if (ho < 1 || wo < 1) fail("the padding crops the whole output");
    return {TensorDesc{Shape{x[0], m, ho, wo}, in[0].dtype}};
  }
  /// Every input element meets (M/groups) * R * S weights.
  double macs(std::span<TensorDesc const> in, std::span<TensorDesc const>) const {
    auto const& w = in[1].shape;
    return static_cast<double>(in[0].numel()) * static_cast<double>(w[1] * w[2] * w[3]);
  }
  double flops(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const { return 2 * macs(in, out); }
  std::string attributes() const {
    return "s" + detail::ints(stride) + " p" + detail::ints(pad) + (groups > 1 ? " g" + std::to_string(groups) : "") +
           (dilation != std::array<std::int64_t, 2>{1, 1} ? " d" + detail::ints(dilation) : "") +
           (output_padding != std::array<std::int64_t, 2>{0, 0} ? " op" + detail::ints(output_padding) : "");
  }
};

}  // namespace autograph
