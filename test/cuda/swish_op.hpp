#pragma once
// A user-defined operator with its own CUDA kernel, the extension point of
// autograph/cuda/kernel.hpp as a user's code would lay it out: the operator and the
// declaration of its Kernel in a header, the kernel and its launch in a .cu file
// (extension_test.cu), the graphs that use it in ordinary C++ (extension_test.cpp). Only the
// .cu file goes through nvcc, so the heavy template instantiations (graph builder, executor,
// lowering for the extended operator set) compile once, with the host compiler.
#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/cuda/kernel.hpp"
#include "autograph/ops/operator.hpp"

namespace extension_test {

/// Swish (SiLU with a slope): y = x * sigmoid(beta * x).
struct Swish {
  static constexpr std::string_view name = "Swish";
  static constexpr autograph::Arity arity{1, 1};
  float beta = 1.f;

  auto params() const { return std::tuple{beta}; }
  bool operator==(Swish const&) const = default;
  std::vector<autograph::TensorDesc> infer(std::span<autograph::TensorDesc const> in) const {
    autograph::detail::check_arity<Swish>(in);
    return {in[0]};
  }
  double flops(std::span<autograph::TensorDesc const>, std::span<autograph::TensorDesc const> out) const {
    return 4.0 * static_cast<double>(out[0].numel());
  }
  std::vector<autograph::Tensor> evaluate(std::span<autograph::Tensor const> in, std::span<autograph::TensorDesc const> out) const {
    autograph::Tensor y(out[0].shape);
    for (std::int64_t i = 0; i < y.numel(); ++i) {
      float x = in[0].ptr()[i];
      y.mutable_ptr()[i] = x / (1.f + std::exp(-beta * x));
    }
    return {y};
  }
};

/// An operator nobody wrote a CUDA kernel for.
struct Unported {
  static constexpr std::string_view name = "Unported";
  static constexpr autograph::Arity arity{1, 1};
  auto params() const { return std::tuple{}; }
  bool operator==(Unported const&) const = default;
  std::vector<autograph::TensorDesc> infer(std::span<autograph::TensorDesc const> in) const { return {in[0]}; }
  double flops(std::span<autograph::TensorDesc const>, std::span<autograph::TensorDesc const>) const { return 1; }
};

}  // namespace extension_test

/// Defined in extension_test.cu, beside its kernel.
template <>
struct autograph::cuda::Kernel<extension_test::Swish> {
  static void lower(extension_test::Swish const& op, Lowering& l);
};
