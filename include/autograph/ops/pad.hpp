#pragma once
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

/// Constant padding: pads[i] before and pads[rank + i] after dimension i (ONNX order).
struct Pad {
  static constexpr std::string_view name = "Pad";
  static constexpr Arity arity{1, 1};
  std::vector<std::int64_t> pads = {};
  float value = 0.f;

  auto params() const { return std::tuple{pads, value}; }
  bool operator==(Pad const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    auto const& x = in[0].shape;
    if (pads.size() != 2 * x.rank())
      throw ShapeError("Pad of " + x.to_string() + ": needs " + std::to_string(2 * x.rank()) + " pads, got " + std::to_string(pads.size()));
    Shape out = x;
    for (std::size_t d = 0; d < x.rank(); ++d) {
      if (pads[d] < 0 || pads[x.rank() + d] < 0) throw ShapeError("Pad of " + x.to_string() + ": negative pads are not supported");
      out[d] += pads[d] + pads[x.rank() + d];
    }
    return {TensorDesc{out, in[0].dtype}};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 0; }
  std::string attributes() const { return "[" + detail::ints(pads) + "]"; }
};

/// TASO's enlarge: zero-pad a conv kernel w[K,C,R,S] to [K,C,kernel_h,kernel_w], centred, so a
/// same-padded conv with the enlarged kernel computes what the small one did.
struct Enlarge {
  static constexpr std::string_view name = "Enlarge";
  static constexpr Arity arity{1, 1};
  std::array<std::int64_t, 2> kernel{3, 3};

  auto params() const { return std::tuple{kernel}; }
  bool operator==(Enlarge const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    detail::check_rank<Enlarge>(in, 0, 4, "weight");
    auto const& w = in[0].shape;
    if (w[2] > kernel[0] || w[3] > kernel[1] || (kernel[0] - w[2]) % 2 != 0 || (kernel[1] - w[3]) % 2 != 0)
      throw ShapeError("Enlarge of " + w.to_string() + " to " + detail::ints(kernel) +
                       ": the target must be at least as large and differ by an even amount per side");
    return {TensorDesc{Shape{w[0], w[1], kernel[0], kernel[1]}, in[0].dtype}};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 0; }
  std::string attributes() const { return detail::ints(kernel); }
};

}  // namespace autograph
