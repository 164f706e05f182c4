#pragma once
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

/// Reshape to a fixed shape; at most one dimension may be -1 (inferred).
struct Reshape {
  static constexpr std::string_view name = "Reshape";
  static constexpr Arity arity{1, 1};
  std::vector<std::int64_t> shape = {};

  auto params() const { return std::tuple{shape}; }
  bool operator==(Reshape const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    auto const& x = in[0].shape;
    auto fail = [&](std::string const& why) { throw ShapeError("Reshape " + x.to_string() + " to [" + detail::ints(shape) + "]: " + why); };
    if (shape.size() > Shape::max_rank) fail("too many dimensions");
    std::vector<std::int64_t> out = shape;
    std::int64_t known = 1;
    int infer_at = -1;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (out[i] == -1) {
        if (infer_at >= 0) fail("more than one -1");
        infer_at = static_cast<int>(i);
      } else if (out[i] < 0) {
        fail("negative dimension");
      } else {
        known *= out[i];
      }
    }
    if (infer_at >= 0) {
      if (known == 0 || x.numel() % known != 0) fail("element count " + std::to_string(x.numel()) + " does not divide");
      out[static_cast<std::size_t>(infer_at)] = x.numel() / known;
    } else if (known != x.numel()) {
      fail("element counts differ (" + std::to_string(x.numel()) + " vs " + std::to_string(known) + ")");
    }
    return {TensorDesc{Shape(out), in[0].dtype}};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 0; }
  double bytes(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 0; }  // a view: no data moves
  std::string attributes() const { return "[" + detail::ints(shape) + "]"; }
};

}  // namespace autograph
