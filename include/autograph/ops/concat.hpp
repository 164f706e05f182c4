#pragma once
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

/// Concatenation along one axis; all other dimensions must agree.
struct Concat {
  static constexpr std::string_view name = "Concat";
  static constexpr Arity arity{1, Arity::variadic};
  std::int64_t axis = 1;

  auto params() const { return std::tuple{axis}; }
  bool operator==(Concat const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    detail::check_same_dtype<Concat>(in);
    Shape out = in[0].shape;
    std::size_t a = out.normalize_axis(axis);
    for (std::size_t i = 1; i < in.size(); ++i) {
      auto const& s = in[i].shape;
      bool ok = s.rank() == out.rank();
      for (std::size_t d = 0; ok && d < s.rank(); ++d) ok = d == a || s[d] == out[d];
      if (!ok)
        throw ShapeError("Concat axis " + std::to_string(axis) + ": input " + std::to_string(i) + " " + s.to_string() +
                         " does not match input 0 " + in[0].shape.to_string());
      out[a] += s[a];
    }
    return {TensorDesc{out, in[0].dtype}};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 0; }
  std::string attributes() const { return "axis " + std::to_string(axis); }
};

}  // namespace autograph
