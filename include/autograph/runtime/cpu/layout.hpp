#pragma once
// Data movement: Concat, Split, Transpose, Slice, Pad, Enlarge as strided copies (strided.hpp),
// and Reshape, a view that shares its input's storage.
#include <algorithm>
#include <span>

#include "autograph/core/tensor.hpp"
#include "autograph/ops/concat.hpp"
#include "autograph/ops/pad.hpp"
#include "autograph/ops/reshape.hpp"
#include "autograph/ops/slice.hpp"
#include "autograph/ops/split.hpp"
#include "autograph/ops/transpose.hpp"
#include "autograph/runtime/cpu/strided.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph::reference {

namespace detail {
/// A tensor of shape `ys` filled with `fill`, with x copied in at offset before[d] along each
/// dimension d (constant padding; Enlarge is padding of the kernel's spatial axes).
inline Tensor place(Tensor const& x, Shape const& ys, std::span<std::int64_t const> before, float fill) {
  Tensor y(ys);
  std::ranges::fill(y.mutable_data(), fill);
  if (x.numel() == 0) return y;
  cpu::Strides yst = strides_of(ys);
  std::int64_t origin = 0;
  for (std::size_t d = 0; d < ys.rank(); ++d) origin += before[d] * yst[d];
  cpu::copy_strided(x.shape(), x.ptr(), strides_of(x.shape()), y.mutable_ptr() + origin, yst);
  return y;
}
}  // namespace detail

/// Each input is copied into its slab of the output along the axis.
template <>
struct Kernel<Concat> {
  std::vector<Tensor> operator()(Concat const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Shape const& ys = out[0].shape;
    std::size_t a = ys.normalize_axis(op.axis);
    cpu::Strides yst = strides_of(ys);
    Tensor y(ys);
    std::int64_t at = 0;
    for (Tensor const& t : in) {
      if (t.numel() > 0) cpu::copy_strided(t.shape(), t.ptr(), strides_of(t.shape()), y.mutable_ptr() + at * yst[a], yst);
      at += t.shape()[a];
    }
    return {std::move(y)};
  }
};

/// Each output is copied out of its slab of the input along the axis.
template <>
struct Kernel<Split> {
  std::vector<Tensor> operator()(Split const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Shape const& xs = in[0].shape();
    std::size_t a = xs.normalize_axis(op.axis);
    cpu::Strides xst = strides_of(xs);
    std::vector<Tensor> pieces;
    std::int64_t at = 0;
    for (TensorDesc const& d : out) {
      Tensor& p = pieces.emplace_back(d.shape);
      if (p.numel() > 0) cpu::copy_strided(d.shape, in[0].ptr() + at * xst[a], xst, p.mutable_ptr(), strides_of(d.shape));
      at += d.shape[a];
    }
    return pieces;
  }
};

template <>
struct Kernel<Reshape> {
  std::vector<Tensor> operator()(Reshape const&, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    return {in[0].reshaped(out[0].shape)};
  }
};

/// Walks the output; output dim i reads input dim perm[i], so its stride is the input's stride perm[i].
template <>
struct Kernel<Transpose> {
  std::vector<Tensor> operator()(Transpose const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Shape const& ys = out[0].shape;
    cpu::Strides xst = strides_of(in[0].shape()), src{};
    for (std::size_t i = 0; i < op.perm.size(); ++i) src[i] = xst[static_cast<std::size_t>(op.perm[i])];
    Tensor y(ys);
    cpu::copy_strided(ys, in[0].ptr(), src, y.mutable_ptr(), strides_of(ys));
    return {std::move(y)};
  }
};

/// Walks the output; along dim d the input is read from start[d] with stride step[d] * stride[d].
template <>
struct Kernel<Slice> {
  std::vector<Tensor> operator()(Slice const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Shape const& xs = in[0].shape();
    Shape const& ys = out[0].shape;
    Tensor y(ys);
    if (ys.numel() == 0) return {std::move(y)};
    auto ranges = op.ranges(xs);
    cpu::Strides xst = strides_of(xs), src{};
    std::int64_t origin = 0;
    for (std::size_t d = 0; d < xs.rank(); ++d) {
      origin += ranges[d].start * xst[d];
      src[d] = ranges[d].step * xst[d];
    }
    cpu::copy_strided(ys, in[0].ptr() + origin, src, y.mutable_ptr(), strides_of(ys));
    return {std::move(y)};
  }
};

template <>
struct Kernel<Pad> {
  std::vector<Tensor> operator()(Pad const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    return {detail::place(in[0], out[0].shape, std::span(op.pads).first(in[0].shape().rank()), op.value)};
  }
};

/// w[K,C,R,S] centred in zeros [K,C,kh,kw]: (kh-R)/2 rows above, (kw-S)/2 columns to the left.
template <>
struct Kernel<Enlarge> {
  std::vector<Tensor> operator()(Enlarge const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Shape const& ws = in[0].shape();
    std::int64_t before[] = {0, 0, (op.kernel[0] - ws[2]) / 2, (op.kernel[1] - ws[3]) / 2};
    return {detail::place(in[0], out[0].shape, before, 0.f)};
  }
};

}  // namespace autograph::reference
