#pragma once
// 2-D convolution, NCHW: inputs x[N,C,H,W], w[K,C/groups,R,S], optional bias[K].
#include <array>
#include <tuple>

#include "autograph/ops/activation.hpp"
#include "autograph/ops/operator.hpp"

namespace autograph {

struct Conv2D {
  static constexpr std::string_view name = "Conv2D";
  static constexpr Arity arity{2, 3};
  std::array<std::int64_t, 2> stride{1, 1};
  std::array<std::int64_t, 4> pad{0, 0, 0, 0};  // top, left, bottom, right
  std::array<std::int64_t, 2> dilation{1, 1};
  std::int64_t groups = 1;
  Activation act = Activation::none;

  /// "same" padding for a stride-1 odd kernel, the common case in the models.
  static std::array<std::int64_t, 4> same_pad(std::int64_t r, std::int64_t s) { return {r / 2, s / 2, (r - 1) / 2, (s - 1) / 2}; }

  auto params() const { return std::tuple{stride, pad, dilation, groups, act}; }
  bool operator==(Conv2D const&) const = default;

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    detail::check_rank<Conv2D>(in, 0, 4, "x");
    detail::check_rank<Conv2D>(in, 1, 4, "weight");
    detail::check_same_dtype<Conv2D>(in);
    auto const& x = in[0].shape;
    auto const& w = in[1].shape;
    auto fail = [&](std::string const& why) {
      throw ShapeError("Conv2D x=" + x.to_string() + " w=" + w.to_string() + ": " + why);
    };
    if (stride[0] < 1 || stride[1] < 1 || dilation[0] < 1 || dilation[1] < 1) fail("stride and dilation must be >= 1");
    for (auto p : pad)
      if (p < 0) fail("padding must be >= 0");
    if (groups < 1) fail("groups must be >= 1");
    if (x[1] % groups != 0) fail("input channels " + std::to_string(x[1]) + " not divisible by groups " + std::to_string(groups));
    if (w[0] % groups != 0) fail("output channels " + std::to_string(w[0]) + " not divisible by groups " + std::to_string(groups));
    if (w[1] * groups != x[1])
      fail("weight expects " + std::to_string(w[1] * groups) + " input channels (" + std::to_string(w[1]) + " x groups " +
           std::to_string(groups) + "), x has " + std::to_string(x[1]));
    if (in.size() == 3 && in[2].shape != Shape{w[0]}) fail("bias must be [" + std::to_string(w[0]) + "], got " + in[2].shape.to_string());
    std::int64_t eff_r = dilation[0] * (w[2] - 1) + 1, eff_s = dilation[1] * (w[3] - 1) + 1;
    std::int64_t hp = x[2] + pad[0] + pad[2], wp = x[3] + pad[1] + pad[3];
    if (eff_r > hp || eff_s > wp) fail("kernel larger than the padded input");
    return {TensorDesc{Shape{x[0], w[0], (hp - eff_r) / stride[0] + 1, (wp - eff_s) / stride[1] + 1}, in[0].dtype}};
  }
  double macs(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const {
    auto const& w = in[1].shape;
    return static_cast<double>(out[0].numel()) * static_cast<double>(w[1] * w[2] * w[3]);
  }
  double flops(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const { return 2 * macs(in, out); }
  std::string attributes() const {
    return "s" + detail::ints(stride) + " p" + detail::ints(pad) + (groups > 1 ? " g" + std::to_string(groups) : "") +
           (dilation != std::array<std::int64_t, 2>{1, 1} ? " d" + detail::ints(dilation) : "") +
           (act != Activation::none ? " " + std::string(to_string(act)) : "");
  }
};

}  // namespace autograph
