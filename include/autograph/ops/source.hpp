#pragma once
// Source ops: graph inputs and weights. They run no kernel.
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "autograph/ops/operator.hpp"

namespace autograph {

/// A graph input (fed at run time).
struct Input {
  static constexpr std::string_view name = "Input";
  static constexpr Arity arity{0, 0};
  static constexpr bool is_source = true;
  TensorDesc desc = {};
  std::string label = {};  // the input's name: inputs are bound by it, and it is part of the identity

  auto params() const { return std::tuple{desc, label}; }
  std::vector<TensorDesc> infer(std::span<TensorDesc const>) const {
    return {desc};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 0; }
  std::string attributes() const { return desc.to_string(); }
  bool operator==(Input const&) const = default;
};

/// A constant tensor: a shape, and data when the model has it. Data is shared, never copied:
/// graphs made by rewrites point at the same storage. Two weights are equal when they have
/// the same shape and the same storage (or both have none and the same id).
/// How random data is made for a shape-only weight (fill_random_weights): a conv/matmul
/// kernel is scaled by its fan-in so deep models stay finite; BatchNorm variances positive.
enum class WeightInit : std::uint8_t { fan_in, uniform, positive, ones, zeros };

struct Weight {
  static constexpr std::string_view name = "Weight";
  static constexpr Arity arity{0, 0};
  static constexpr bool is_source = true;
  TensorDesc desc;
  std::shared_ptr<std::vector<float> const> data = nullptr;  // null: shape only
  std::uint64_t id = 0;                            // tells apart shape-only weights
  WeightInit init = WeightInit::fan_in;
  // false: a buffer, state the model keeps beside its parameters and never trains (PyTorch's
  // register_buffer: DETR's frozen BatchNorm, a positional encoding computed at build time);
  // trainable_parameters() leaves it out. Not part of the hash: the id already tells weights apart.
  bool trainable = true;

  auto params() const { return std::tuple{desc, id, reinterpret_cast<std::uintptr_t>(data.get()), init}; }
  std::vector<TensorDesc> infer(std::span<TensorDesc const>) const {
    if (data && static_cast<std::int64_t>(data->size()) != desc.numel())
      throw ShapeError("Weight of shape " + desc.shape.to_string() + " holds " + std::to_string(data->size()) +
                       " values, expected " + std::to_string(desc.numel()));
    return {desc};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 0; }
  std::string attributes() const { return desc.to_string(); }
  bool operator==(Weight const&) const = default;
};

}  // namespace autograph
