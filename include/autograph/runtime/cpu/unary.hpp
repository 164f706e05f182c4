#pragma once
// Unary elementwise ops, Scale, and Identity (a view: it shares its input's storage).
#include "autograph/core/tensor.hpp"
#include "autograph/ops/unary.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph::reference {

namespace detail {
/// y[i] = f(x[i]) into a new tensor of x's shape.
template <class F>
Tensor map_elements(Tensor const& x, F f) {
  Tensor y(x.shape());
  float const* xp = x.ptr();
  float* yp = y.mutable_ptr();
  for (std::int64_t i = 0; i < x.numel(); ++i) yp[i] = f(xp[i]);
  return y;
}
}  // namespace detail

template <UnaryKind K>
struct Kernel<Unary<K>> {
  std::vector<Tensor> operator()(Unary<K> const& op, std::span<Tensor const> in, std::span<TensorDesc const>) const {
    return {detail::map_elements(in[0], [a = op.alpha, b = op.beta](float x) { return apply(K, x, a, b); })};
  }
};

template <>
struct Kernel<Scale> {
  std::vector<Tensor> operator()(Scale const& op, std::span<Tensor const> in, std::span<TensorDesc const>) const {
    return {detail::map_elements(in[0], [s = op.scale, t = op.shift](float x) { return x * s + t; })};
  }
};

template <>
struct Kernel<Identity> {
  std::vector<Tensor> operator()(Identity const&, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    return {in[0].reshaped(out[0].shape)};
  }
};

}  // namespace autograph::reference
