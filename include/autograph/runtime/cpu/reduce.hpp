#pragma once
// Reduce (mean or sum): walk the input and accumulate into the output, whose strides are 0
// along the reduced axes, so every input element lands in the output cell it reduces into.
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/ops/reduce.hpp"
#include "autograph/runtime/cpu/strided.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph::reference {

template <>
struct Kernel<Reduce> {
  std::vector<Tensor> operator()(Reduce const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Shape const& xs = in[0].shape();
    auto reduced = op.reduced(xs);
    // The output laid out with the reduced axes kept as size 1 (the same memory with or
    // without keepdims), then those axes given stride 0.
    Shape kept = xs;
    std::int64_t count = 1;
    for (std::size_t d = 0; d < xs.rank(); ++d)
      if (reduced[d]) {
        count *= xs[d];
        kept[d] = 1;
      }
    cpu::Strides dst = cpu::broadcast_strides(kept, xs);
    std::vector<double> acc(static_cast<std::size_t>(kept.numel()), 0.0);  // double: sums of many floats
    float const* x = in[0].ptr();
    cpu::for_each_index<2>(xs, {strides_of(xs), dst}, [&](auto const& o) { acc[static_cast<std::size_t>(o[1])] += x[o[0]]; });
    // The mean over an empty axis is 0/0 = NaN, as in NumPy and PyTorch; the sum is 0.
    double div = op.kind == ReduceKind::mean ? static_cast<double>(count) : 1.0;
    Tensor y(out[0].shape);
    float* yp = y.mutable_ptr();
    for (std::size_t i = 0; i < acc.size(); ++i) yp[i] = static_cast<float>(acc[i] / div);
    return {std::move(y)};
  }
};

}  // namespace autograph::reference
