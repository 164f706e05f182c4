#pragma once
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

/// Static slice: for each listed axis, elements start, start+step, ... < end (step > 0).
/// Negative starts/ends count from the back and are clamped, as in ONNX Slice.
struct Slice {
  static constexpr std::string_view name = "Slice";
  static constexpr Arity arity{1, 1};
  std::vector<std::int64_t> axes = {}, starts = {}, ends = {}, steps = {};

  auto params() const { return std::tuple{axes, starts, ends, steps}; }
  bool operator==(Slice const&) const = default;

  /// The resolved [start, step, count] per dimension of x.
  struct Range {
    std::int64_t start, step, count;
  };
  std::vector<Range> ranges(Shape const& x) const {
    std::vector<Range> r(x.rank());
    for (std::size_t d = 0; d < x.rank(); ++d) r[d] = {0, 1, x[d]};
    if (starts.size() != axes.size() || ends.size() != axes.size() || (!steps.empty() && steps.size() != axes.size()))
      throw ShapeError("Slice of " + x.to_string() + ": axes, starts, ends and steps differ in length");
    for (std::size_t i = 0; i < axes.size(); ++i) {
      std::size_t a = x.normalize_axis(axes[i]);
      std::int64_t n = x[a], step = steps.empty() ? 1 : steps[i];
      if (step <= 0) throw ShapeError("Slice of " + x.to_string() + ": step must be > 0, got " + std::to_string(step));
      auto clamp = [n](std::int64_t v) { return std::min(std::max(v < 0 ? v + n : v, std::int64_t{0}), n); };
      std::int64_t s = clamp(starts[i]), e = clamp(ends[i]);
      r[a] = {s, step, e > s ? (e - s + step - 1) / step : 0};
    }
    return r;
  }
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    auto r = ranges(in[0].shape);
    Shape out = in[0].shape;
    for (std::size_t d = 0; d < r.size(); ++d) out[d] = r[d].count;
    return {TensorDesc{out, in[0].dtype}};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 0; }
  std::string attributes() const { return "axes [" + detail::ints(axes) + "] [" + detail::ints(starts) + ":" + detail::ints(ends) + "]"; }
};

}  // namespace autograph
