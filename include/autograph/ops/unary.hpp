#pragma once
// Unary elementwise ops. Parameterised ones use alpha/beta: LeakyRelu(alpha),
// Clip(min = alpha, max = beta), HardSigmoid(alpha, beta) = clip(alpha*x + beta, 0, 1).
#include <algorithm>
#include <cmath>
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

enum class UnaryKind : std::uint8_t {
  relu, sigmoid, tanh, gelu, exp, log, sqrt, erf, neg, abs, reciprocal, leaky_relu, clip, hard_sigmoid, hard_swish
};

constexpr std::string_view unary_name(UnaryKind k) {
  constexpr std::string_view names[] = {"Relu", "Sigmoid", "Tanh",       "Gelu", "Exp",       "Log",         "Sqrt",     "Erf",
                                        "Neg",  "Abs",     "Reciprocal", "LeakyRelu", "Clip", "HardSigmoid", "HardSwish"};
  return names[static_cast<int>(k)];
}

inline float apply(UnaryKind k, float x, float alpha, float beta) {
  switch (k) {
    case UnaryKind::relu: return x > 0.f ? x : 0.f;
    case UnaryKind::sigmoid: return 1.f / (1.f + std::exp(-x));
    case UnaryKind::tanh: return std::tanh(x);
    case UnaryKind::gelu: return 0.5f * x * (1.f + std::erf(x * 0.70710678118654752f));  // exact (erf) GELU
    case UnaryKind::exp: return std::exp(x);
    case UnaryKind::log: return std::log(x);
    case UnaryKind::sqrt: return std::sqrt(x);
    case UnaryKind::erf: return std::erf(x);
    case UnaryKind::neg: return -x;
    case UnaryKind::abs: return std::fabs(x);
    case UnaryKind::reciprocal: return 1.f / x;
    case UnaryKind::leaky_relu: return x >= 0.f ? x : alpha * x;
    case UnaryKind::clip: return std::min(std::max(x, alpha), beta);
    case UnaryKind::hard_sigmoid: return std::max(0.f, std::min(1.f, alpha * x + beta));
    case UnaryKind::hard_swish: return x * std::max(0.f, std::min(1.f, x / 6.f + 0.5f));
  }
  return x;
}

template <UnaryKind K>
struct Unary {
  static constexpr std::string_view name = unary_name(K);
  static constexpr Arity arity{1, 1};
  static constexpr bool elementwise = true;
  static constexpr UnaryKind kind = K;
  float alpha = K == UnaryKind::leaky_relu ? 0.01f : K == UnaryKind::hard_sigmoid ? 0.2f : K == UnaryKind::clip ? -3.4028235e38f : 0.f;
  float beta = K == UnaryKind::hard_sigmoid ? 0.5f : K == UnaryKind::clip ? 3.4028235e38f : 0.f;

  auto params() const { return std::tuple{alpha, beta}; }
  bool operator==(Unary const&) const = default;

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    if constexpr (K == UnaryKind::clip)
      if (alpha > beta) throw ShapeError("Clip: min " + std::to_string(alpha) + " is greater than max " + std::to_string(beta));
    return {in[0]};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const> out) const { return static_cast<double>(out[0].numel()); }
};

using Relu = Unary<UnaryKind::relu>;
using Sigmoid = Unary<UnaryKind::sigmoid>;
using Tanh = Unary<UnaryKind::tanh>;
using Gelu = Unary<UnaryKind::gelu>;
using Exp = Unary<UnaryKind::exp>;
using Log = Unary<UnaryKind::log>;
using Sqrt = Unary<UnaryKind::sqrt>;
using Erf = Unary<UnaryKind::erf>;
using Neg = Unary<UnaryKind::neg>;
using Abs = Unary<UnaryKind::abs>;
using Reciprocal = Unary<UnaryKind::reciprocal>;
using LeakyRelu = Unary<UnaryKind::leaky_relu>;
using Clip = Unary<UnaryKind::clip>;
using HardSigmoid = Unary<UnaryKind::hard_sigmoid>;
using HardSwish = Unary<UnaryKind::hard_swish>;

/// y = x * scale + shift with scalar constants (TASO's scalar mul; 1 - x in SRU).
struct Scale {
  static constexpr std::string_view name = "Scale";
  static constexpr Arity arity{1, 1};
  static constexpr bool elementwise = true;
  float scale = 1.f;
  float shift = 0.f;

  auto params() const { return std::tuple{scale, shift}; }
  bool operator==(Scale const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    return {in[0]};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const> out) const { return 2.0 * static_cast<double>(out[0].numel()); }
  std::string attributes() const { return "*" + std::to_string(scale) + " +" + std::to_string(shift); }
};

/// Identity: passes its input through (ONNX Identity, Dropout at inference).
struct Identity {
  static constexpr std::string_view name = "Identity";
  static constexpr Arity arity{1, 1};
  static constexpr bool elementwise = true;
  auto params() const { return std::tuple{}; }
  bool operator==(Identity const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    return {in[0]};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 0; }
};

}  // namespace autograph
