#pragma once
// Binary elementwise ops with NumPy broadcasting. Equal shapes (the common case) run as one
// flat loop; anything else walks the output with broadcast strides for the operands.
#include "autograph/core/tensor.hpp"
#include "autograph/ops/elementwise.hpp"
#include "autograph/runtime/cpu/strided.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph::reference {

template <BinaryKind K>
struct Kernel<Binary<K>> {
  std::vector<Tensor> operator()(Binary<K> const&, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Shape const& ys = out[0].shape;
    Tensor y(ys);
    float const* a = in[0].ptr();
    float const* b = in[1].ptr();
    float* c = y.mutable_ptr();
    if (in[0].shape() == ys && in[1].shape() == ys) {
      for (std::int64_t i = 0; i < ys.numel(); ++i) c[i] = apply(K, a[i], b[i]);
    } else {
      cpu::for_each_index<3>(ys, {strides_of(ys), cpu::broadcast_strides(in[0].shape(), ys), cpu::broadcast_strides(in[1].shape(), ys)},
                             [&](auto const& o) { c[o[0]] = apply(K, a[o[1]], b[o[2]]); });
    }
    return {std::move(y)};
  }
};

}  // namespace autograph::reference
