#pragma once
// The activation an op may apply to its output (Conv2D, MatMul), as TASO and cuDNN fuse it;
// gelu is the exact (erf) GELU of UnaryKind::gelu, which the transformers' MLPs apply after
// their first linear layer (AutoGTCO's matmul + bias + GELU fusion).
#include <cmath>
#include <cstdint>
#include <string_view>

namespace autograph {

enum class Activation : std::uint8_t { none, relu, sigmoid, tanh, gelu };

constexpr std::string_view to_string(Activation a) {
  switch (a) {
    case Activation::none: return "none";
    case Activation::relu: return "relu";
    case Activation::sigmoid: return "sigmoid";
    case Activation::tanh: return "tanh";
    case Activation::gelu: return "gelu";
  }
  return "?";
}

inline float apply(Activation a, float x) {
  switch (a) {
    case Activation::none: return x;
    case Activation::relu: return x > 0.f ? x : 0.f;
    case Activation::sigmoid: return 1.f / (1.f + std::exp(-x));
    case Activation::tanh: return std::tanh(x);
    case Activation::gelu: return 0.5f * x * (1.f + std::erf(x * 0.70710678118654752f));  // as UnaryKind::gelu
  }
  return x;
}

}  // namespace autograph
