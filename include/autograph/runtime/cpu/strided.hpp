#pragma once
// Strided iteration: the one index loop that the broadcasting, layout and reduction kernels
// share. An operand is a base pointer plus one stride per dimension of the *iteration* shape;
// stride 0 repeats an element (a broadcast read, or a reduction's write).
//
//   transpose:  iterate the output shape; the input's strides are permuted.
//   slice:      iterate the output shape; the input's strides are scaled by the steps.
//   pad/concat: iterate the input shape; the output's strides, offset to the placement.
//   reduce:     iterate the input shape; the output's strides are 0 along reduced axes.
#include <array>
#include <cstdint>

#include "autograph/core/shape.hpp"

namespace autograph::cpu {

using Strides = std::array<std::int64_t, Shape::max_rank>;

/// Strides that read a tensor of shape `s` as if broadcast to `to` (NumPy: shapes align at the
/// back; a dimension of size 1, or a missing one, repeats with stride 0).
/// @pre broadcast(s, to) == to
inline Strides broadcast_strides(Shape const& s, Shape const& to) {
  Strides own = strides_of(s), st{};
  std::size_t lead = to.rank() - s.rank();
  for (std::size_t d = 0; d < s.rank(); ++d) st[lead + d] = s[d] == 1 ? 0 : own[d];
  return st;
}

/// Every stride times `k` (strides counted in elements of a batch of k-element blocks).
inline Strides scaled(Strides st, std::int64_t k) {
  for (auto& s : st) s *= k;
  return st;
}

/// Calls f(offsets) for every index of `shape` in row-major order; offsets[k] is the sum over
/// dimensions of index * strides[k]. An odometer over the outer dimensions with a tight loop
/// over the last one: increments only, no division per element.
///
/// Dimensions of size 1 are dropped, and a dimension merges into the one before it when every
/// operand steps through the pair as through one dimension: folding a BatchNorm walks an
/// [O, I, kh, kw] kernel times a per-O scale as O loops of I·kh·kw, not O·I·kh loops of kw.
/// The order of the calls is the same either way.
template <std::size_t N, class F>
void for_each_index(Shape const& shape, std::array<Strides, N> const& strides, F&& f) {
  std::array<std::int64_t, N> base{};
  if (shape.numel() == 0) return;
  std::array<std::int64_t, Shape::max_rank> dims{};
  std::array<Strides, N> st{};
  std::size_t rank = 0;
  for (std::size_t d = 0; d < shape.rank(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = rank > 0;
    for (std::size_t k = 0; merge && k < N; ++k) merge = st[k][rank - 1] == strides[k][d] * shape[d];
    if (!merge) ++rank;
    dims[rank - 1] = merge ? dims[rank - 1] * shape[d] : shape[d];
    for (std::size_t k = 0; k < N; ++k) st[k][rank - 1] = strides[k][d];
  }
  if (rank == 0) {
    f(base);
    return;
  }
  std::size_t const last = rank - 1;
  std::array<std::int64_t, N> step;
  for (std::size_t k = 0; k < N; ++k) step[k] = st[k][last];
  std::array<std::int64_t, Shape::max_rank> idx{};
  for (;;) {
    std::array<std::int64_t, N> off = base;
    for (std::int64_t i = 0; i < dims[last]; ++i) {
      f(off);
      for (std::size_t k = 0; k < N; ++k) off[k] += step[k];
    }
    // Carry into the outer dimensions; done when the carry runs off the front.
    std::size_t d = last;
    for (;;) {
      if (d == 0) return;
      --d;
      for (std::size_t k = 0; k < N; ++k) base[k] += st[k][d];
      if (++idx[d] < dims[d]) break;
      for (std::size_t k = 0; k < N; ++k) base[k] -= st[k][d] * dims[d];
      idx[d] = 0;
    }
  }
}

/// dst[i . dst_strides] = src[i . src_strides] for every index i of `shape`.
inline void copy_strided(Shape const& shape, float const* src, Strides const& src_strides, float* dst, Strides const& dst_strides) {
  for_each_index<2>(shape, {src_strides, dst_strides}, [&](auto const& o) { dst[o[1]] = src[o[0]]; });
}

}  // namespace autograph::cpu
