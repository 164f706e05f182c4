#pragma once
// 2-D max/average pooling, NCHW; `global` pools the whole spatial extent.
#include <array>
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

enum class PoolKind : std::uint8_t { max, avg };

struct Pool2D {
  static constexpr std::string_view name = "Pool2D";
  static constexpr Arity arity{1, 1};
  PoolKind kind = PoolKind::max;
  std::array<std::int64_t, 2> kernel{1, 1};
  std::array<std::int64_t, 2> stride{1, 1};
  std::array<std::int64_t, 4> pad{0, 0, 0, 0};  // top, left, bottom, right
  bool global = false;
  bool count_include_pad = false;  // average pooling: divide by the full window (PyTorch's default) or the valid part (ONNX's)
  bool ceil_mode = false;

  auto params() const { return std::tuple{kind, kernel, stride, pad, global, count_include_pad, ceil_mode}; }
  bool operator==(Pool2D const&) const = default;

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    detail::check_rank<Pool2D>(in, 0, 4, "x");
    auto const& x = in[0].shape;
    auto fail = [&](std::string const& why) { throw ShapeError("Pool2D x=" + x.to_string() + ": " + why); };
    // A window over an empty image pools nothing: no maximum, and an average of 0/0. (An
    // empty batch or channel dimension is fine: the output is empty too.)
    if (x[2] == 0 || x[3] == 0) fail("cannot pool an image with no rows or columns");
    if (global) return {TensorDesc{Shape{x[0], x[1], 1, 1}, in[0].dtype}};
    if (kernel[0] < 1 || kernel[1] < 1 || stride[0] < 1 || stride[1] < 1) fail("kernel and stride must be >= 1");
    for (auto p : pad)
      if (p < 0) fail("padding must be >= 0");
    if (pad[0] >= kernel[0] || pad[2] >= kernel[0] || pad[1] >= kernel[1] || pad[3] >= kernel[1])
      fail("padding must be smaller than the kernel");
    std::int64_t hp = x[2] + pad[0] + pad[2], wp = x[3] + pad[1] + pad[3];
    if (kernel[0] > hp || kernel[1] > wp) fail("kernel " + detail::ints(kernel) + " larger than the padded input");
    auto out_dim = [&](std::int64_t padded, std::int64_t k, std::int64_t s) {
      return ceil_mode ? (padded - k + s - 1) / s + 1 : (padded - k) / s + 1;
    };
    std::int64_t ho = out_dim(hp, kernel[0], stride[0]);
    std::int64_t wo = out_dim(wp, kernel[1], stride[1]);
    if (ceil_mode) {
      // The last window must start inside the input plus the begin padding (PyTorch, ONNX).
      if ((ho - 1) * stride[0] >= x[2] + pad[0]) --ho;
      if ((wo - 1) * stride[1] >= x[3] + pad[1]) --wo;
    }
    return {TensorDesc{Shape{x[0], x[1], ho, wo}, in[0].dtype}};
  }
  double flops(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const {
    double window = global ? static_cast<double>(in[0].shape[2] * in[0].shape[3]) : static_cast<double>(kernel[0] * kernel[1]);
    return static_cast<double>(out[0].numel()) * window;
  }
  std::string attributes() const {
    std::string k = kind == PoolKind::max ? "max" : "avg";
    if (global) return k + " global";
    return k + " k" + detail::ints(kernel) + " s" + detail::ints(stride) + " p" + detail::ints(pad) + (ceil_mode ? " ceil" : "");
  }
};

}  // namespace autograph
