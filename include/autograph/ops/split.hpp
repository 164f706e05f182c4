#pragma once
#include <numeric>
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

/// Split along one axis into pieces of the given sizes (one output each).
struct Split {
  static constexpr std::string_view name = "Split";
  static constexpr Arity arity{1, 1};
  std::int64_t axis = 1;
  std::vector<std::int64_t> sizes = {};

  auto params() const { return std::tuple{axis, sizes}; }
  bool operator==(Split const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    Shape s = in[0].shape;
    std::size_t a = s.normalize_axis(axis);
    if (sizes.empty()) throw ShapeError("Split of " + s.to_string() + ": no sizes given");
    for (auto n : sizes)
      if (n < 0) throw ShapeError("Split of " + s.to_string() + ": negative size " + std::to_string(n));
    if (std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0}) != s[a])
      throw ShapeError("Split of " + s.to_string() + " along axis " + std::to_string(axis) + ": sizes [" + detail::ints(sizes) +
                       "] do not add up to " + std::to_string(s[a]));
    std::vector<TensorDesc> out;
    for (auto n : sizes) {
      Shape o = s;
      o[a] = n;
      out.push_back({o, in[0].dtype});
    }
    return out;
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 0; }
  std::string attributes() const { return "axis " + std::to_string(axis) + " [" + detail::ints(sizes) + "]"; }
};

}  // namespace autograph
