#pragma once
// Inference batch normalisation over channel axis 1:
// y = (x - mean) / sqrt(var + epsilon) * scale + bias; inputs x, scale, bias, mean, var.
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

struct BatchNorm {
  static constexpr std::string_view name = "BatchNorm";
  static constexpr Arity arity{5, 5};
  float epsilon = 1e-5f;

  auto params() const { return std::tuple{epsilon}; }
  bool operator==(BatchNorm const&) const = default;

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    if (in[0].shape.rank() < 2) throw ShapeError("BatchNorm: x must have a channel axis, got " + in[0].shape.to_string());
    Shape c{in[0].shape[1]};
    constexpr std::string_view what[] = {"x", "scale", "bias", "mean", "var"};
    for (std::size_t i = 1; i < 5; ++i)
      if (in[i].shape != c)
        throw ShapeError("BatchNorm x=" + in[0].shape.to_string() + ": input " + std::to_string(i) + " (" + std::string(what[i]) +
                         ") must be " + c.to_string() + ", got " + in[i].shape.to_string());
    if (!(epsilon >= 0.f)) throw ShapeError("BatchNorm: epsilon must be >= 0");
    return {in[0]};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const> out) const { return 2.0 * static_cast<double>(out[0].numel()); }
  std::string attributes() const { return "eps " + std::to_string(epsilon); }
};

}  // namespace autograph
