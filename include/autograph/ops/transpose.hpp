#pragma once
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

/// Permute dimensions: output dim i is input dim perm[i].
struct Transpose {
  static constexpr std::string_view name = "Transpose";
  static constexpr Arity arity{1, 1};
  std::vector<std::int64_t> perm = {};

  auto params() const { return std::tuple{perm}; }
  bool operator==(Transpose const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    auto const& x = in[0].shape;
    if (perm.size() != x.rank())
      throw ShapeError("Transpose of " + x.to_string() + ": perm [" + detail::ints(perm) + "] has the wrong length");
    std::vector<bool> seen(perm.size());
    Shape out = x;
    for (std::size_t i = 0; i < perm.size(); ++i) {
      auto p = perm[i];
      if (p < 0 || p >= static_cast<std::int64_t>(perm.size()) || seen[static_cast<std::size_t>(p)])
        throw ShapeError("Transpose of " + x.to_string() + ": perm [" + detail::ints(perm) + "] is not a permutation");
      seen[static_cast<std::size_t>(p)] = true;
      out[i] = x[static_cast<std::size_t>(p)];
    }
    return {TensorDesc{out, in[0].dtype}};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 0; }
  std::string attributes() const { return "[" + detail::ints(perm) + "]"; }
};

}  // namespace autograph
