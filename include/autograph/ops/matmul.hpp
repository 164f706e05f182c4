#pragma once
// Batched matrix multiply a[..., M, K] x b[..., K, N] with NumPy broadcasting of the batch
// dimensions, an optional bias[N] (one per output column: a linear layer's) and an optional
// fused activation: y = act(a b + bias). The bias and activation are the epilogue every GEMM
// library fuses (oneDNN's bias argument and eltwise post-op, cuBLASLt's epilogues), and what
// AutoGTCO fuses into a transformer's dense layers (matmul + bias + GELU).
#include <tuple>

#include "autograph/ops/activation.hpp"
#include "autograph/ops/operator.hpp"

namespace autograph {

struct MatMul {
  static constexpr std::string_view name = "MatMul";
  static constexpr Arity arity{2, 3};
  Activation act = Activation::none;

  auto params() const { return std::tuple{act}; }
  bool operator==(MatMul const&) const = default;

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    detail::check_same_dtype<MatMul>(in);
    auto const& a = in[0].shape;
    auto const& b = in[1].shape;
    if (a.rank() < 2 || b.rank() < 2)
      throw ShapeError("MatMul needs inputs of rank >= 2, got a=" + a.to_string() + " b=" + b.to_string());
    if (a[a.rank() - 1] != b[b.rank() - 2])
      throw ShapeError("MatMul a=" + a.to_string() + " b=" + b.to_string() + ": inner dimensions " +
                       std::to_string(a[a.rank() - 1]) + " and " + std::to_string(b[b.rank() - 2]) + " differ");
    Shape batch_a(a.dims().first(a.rank() - 2)), batch_b(b.dims().first(b.rank() - 2));
    Shape batch;
    try {
      batch = broadcast(batch_a, batch_b);
    } catch (ShapeError const& e) {
      throw ShapeError("MatMul a=" + a.to_string() + " b=" + b.to_string() + ": batch " + e.what());
    }
    std::vector<std::int64_t> out(batch.begin(), batch.end());
    out.push_back(a[a.rank() - 2]);
    out.push_back(b[b.rank() - 1]);
    if (in.size() == 3 && in[2].shape != Shape{b[b.rank() - 1]})
      throw ShapeError("MatMul a=" + a.to_string() + " b=" + b.to_string() + ": input 2 (bias) must be " + Shape{b[b.rank() - 1]}.to_string() +
                       ", one per output column, got " + in[2].shape.to_string());
    return {TensorDesc{Shape(out), in[0].dtype}};
  }
  double macs(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const {
    return static_cast<double>(out[0].numel()) * static_cast<double>(in[0].shape[in[0].shape.rank() - 1]);
  }
  /// Two per multiply-accumulate; the bias and activation are not counted (as Conv2D's: an
  /// epilogue of O(M N) next to the product's O(M N K)).
  double flops(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const { return 2 * macs(in, out); }
  std::string attributes() const { return act != Activation::none ? std::string(to_string(act)) : std::string{}; }
};

}  // namespace autograph
