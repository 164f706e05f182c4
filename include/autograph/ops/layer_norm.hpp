#pragma once
// Layer normalisation over the axes [axis, rank): inputs x, gamma, beta, where gamma and beta
// have the normalised axes' shape (ONNX LayerNormalization).
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

struct LayerNorm {
  static constexpr std::string_view name = "LayerNorm";
  static constexpr Arity arity{3, 3};
  std::int64_t axis = -1;
  float epsilon = 1e-5f;

  auto params() const { return std::tuple{axis, epsilon}; }
  bool operator==(LayerNorm const&) const = default;

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    auto const& x = in[0].shape;
    std::size_t a = x.normalize_axis(axis);
    Shape norm(x.dims().subspan(a));
    for (std::size_t i = 1; i < 3; ++i)
      if (in[i].shape != norm)
        throw ShapeError("LayerNorm x=" + x.to_string() + " axis " + std::to_string(axis) + ": input " + std::to_string(i) + " (" +
                         (i == 1 ? "gamma" : "beta") + ") must be " + norm.to_string() + ", got " + in[i].shape.to_string());
    return {in[0]};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const> out) const { return 8.0 * static_cast<double>(out[0].numel()); }
  std::string attributes() const { return "axis " + std::to_string(axis); }
};

}  // namespace autograph
