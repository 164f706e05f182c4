#pragma once
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

/// Softmax along one axis (ONNX opset >= 13 semantics).
struct Softmax {
  static constexpr std::string_view name = "Softmax";
  static constexpr Arity arity{1, 1};
  std::int64_t axis = -1;

  auto params() const { return std::tuple{axis}; }
  bool operator==(Softmax const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    in[0].shape.normalize_axis(axis);
    return {in[0]};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const> out) const { return 5.0 * static_cast<double>(out[0].numel()); }
  std::string attributes() const { return "axis " + std::to_string(axis); }
};

}  // namespace autograph
