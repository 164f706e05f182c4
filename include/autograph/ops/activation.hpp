#pragma once
// The activation an op may apply to its output (Conv2D, MatMul), as TASO and cuDNN fuse it.
#include <cmath>
#include <cstdint>
#include <string_view>

namespace autograph {

enum class Activation : std::uint8_t { none, relu, sigmoid, tanh };

constexpr std::string_view to_string(Activation a) {
  switch (a) {
    case Activation::none: return "none";
    case Activation::relu: return "relu";
    case Activation::sigmoid: return "sigmoid";
    case Activation::tanh: return "tanh";
  }
  return "?";
}

inline float apply(Activation a, float x) {
  switch (a) {
    case Activation::none: return x;
    case Activation::relu: return x > 0.f ? x : 0.f;
    case Activation::sigmoid: return 1.f / (1.f + std::exp(-x));
    case Activation::tanh: return std::tanh(x);
  }
  return x;
}

}  // namespace autograph
