#pragma once
#include <algorithm>
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

enum class ReduceKind : std::uint8_t { mean, sum };

/// Mean or sum over the given axes (all axes when empty), keeping them as size 1 or not.
struct Reduce {
  static constexpr std::string_view name = "Reduce";
  static constexpr Arity arity{1, 1};
  ReduceKind kind = ReduceKind::mean;
  std::vector<std::int64_t> axes = {};
  bool keepdims = true;

  auto params() const { return std::tuple{kind, axes, keepdims}; }
  bool operator==(Reduce const&) const = default;

  /// Which dimensions of x are reduced.
  std::vector<bool> reduced(Shape const& x) const {
    std::vector<bool> r(x.rank(), axes.empty());
    for (auto a : axes) {
      auto d = x.normalize_axis(a);
      if (r[d] && !axes.empty()) throw ShapeError("Reduce of " + x.to_string() + ": axis " + std::to_string(a) + " listed twice");
      r[d] = true;
    }
    return r;
  }
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    auto r = reduced(in[0].shape);
    std::vector<std::int64_t> out;
    for (std::size_t d = 0; d < r.size(); ++d)
      if (!r[d]) out.push_back(in[0].shape[d]);
      else if (keepdims) out.push_back(1);
    return {TensorDesc{Shape(out), in[0].dtype}};
  }
  double flops(std::span<TensorDesc const> in, std::span<TensorDesc const>) const { return static_cast<double>(in[0].numel()); }
  std::string attributes() const { return std::string(kind == ReduceKind::mean ? "mean" : "sum") + " [" + detail::ints(axes) + "]"; }
};

}  // namespace autograph
