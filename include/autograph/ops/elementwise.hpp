#pragma once
// Binary elementwise ops with NumPy broadcasting: Add, Sub, Mul, Div, Pow, Max, Min.
#include <cmath>
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

enum class BinaryKind : std::uint8_t { add, sub, mul, div, pow, max, min };

constexpr std::string_view binary_name(BinaryKind k) {
  constexpr std::string_view names[] = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"};
  return names[static_cast<int>(k)];
}

inline float apply(BinaryKind k, float a, float b) {
  switch (k) {
    case BinaryKind::add: return a + b;
    case BinaryKind::sub: return a - b;
    case BinaryKind::mul: return a * b;
    case BinaryKind::div: return a / b;
    case BinaryKind::pow: return std::pow(a, b);
    case BinaryKind::max: return a > b ? a : b;
    case BinaryKind::min: return a < b ? a : b;
  }
  return 0.f;
}

template <BinaryKind K>
struct Binary {
  static constexpr std::string_view name = binary_name(K);
  static constexpr Arity arity{2, 2};
  static constexpr bool elementwise = true;
  static constexpr BinaryKind kind = K;
  static constexpr bool commutative = K == BinaryKind::add || K == BinaryKind::mul || K == BinaryKind::max || K == BinaryKind::min;

  auto params() const { return std::tuple{}; }
  bool operator==(Binary const&) const = default;

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    detail::check_same_dtype<Binary>(in);
    try {
      return {TensorDesc{broadcast(in[0].shape, in[1].shape), in[0].dtype}};
    } catch (ShapeError const& e) {
      throw ShapeError(std::string(name) + ": " + e.what());
    }
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const> out) const { return static_cast<double>(out[0].numel()); }
};

using Add = Binary<BinaryKind::add>;
using Sub = Binary<BinaryKind::sub>;
using Mul = Binary<BinaryKind::mul>;
using Div = Binary<BinaryKind::div>;
using Pow = Binary<BinaryKind::pow>;
using Max = Binary<BinaryKind::max>;
using Min = Binary<BinaryKind::min>;

}  // namespace autograph
