#pragma once
// Conv2DEpilogue and MatMulEpilogue: the producer's reference kernel, then each step of the
// chain over the whole output, in order: what the unfused graph's nodes compute, one pass each.
#include "autograph/ops/epilogue.hpp"
#include "autograph/runtime/cpu/conv2d.hpp"
#include "autograph/runtime/cpu/matmul.hpp"

namespace autograph::reference {

template <class Producer>
struct Kernel<Epilogue<Producer>> {
  std::vector<Tensor> operator()(Epilogue<Producer> const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    std::vector<Tensor> y = Kernel<Producer>{}(op.producer, in.first(op.producer_inputs()), out);
    float* v = y[0].mutable_ptr();
    std::int64_t n = out[0].numel();
    std::size_t operand = op.producer_inputs();
    for (EpilogueStep const& s : op.chain()) {
      float const* r = s.binary() ? in[operand++].ptr() : nullptr;  // of the output's shape (infer() checks it)
      for (std::int64_t i = 0; i < n; ++i) v[i] = apply(s, v[i], r ? r[i] : 0.f);
    }
    return y;
  }
};

}  // namespace autograph::reference
