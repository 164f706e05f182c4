// Windowed kernels: 2-D pooling and N-dimensional separable resize. One thread per output
// element; the window rules are the reference kernels' (runtime/cpu/pool2d.hpp, resize.hpp).
#include <cuda_runtime.h>

#include "common.cuh"

namespace autograph::cuda::kernels {
namespace {

using detail::blocks_for;
using detail::block_threads;

__device__ __forceinline__ std::int64_t imin(std::int64_t a, std::int64_t b) { return a < b ? a : b; }
__device__ __forceinline__ std::int64_t imax(std::int64_t a, std::int64_t b) { return a > b ? a : b; }

__global__ void pool2d_kernel(PoolLayout p, float const* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  for (std::int64_t i = detail::global_index(); i < n; i += detail::grid_stride()) {
    std::int64_t ow = i % p.out_w, r = i / p.out_w;
    std::int64_t oh = r % p.out_h, plane = r / p.out_h;
    float const* image = x + plane * p.h * p.w;
    std::int64_t h0 = oh * p.stride_h - p.pad_top, w0 = ow * p.stride_w - p.pad_left;
    std::int64_t ha = imax(h0, 0), hb = imin(h0 + p.kernel_h, p.h);
    std::int64_t wa = imax(w0, 0), wb = imin(w0 + p.kernel_w, p.w);
    if (p.max) {
      float m = -INFINITY;
      for (std::int64_t h = ha; h < hb; ++h)
        for (std::int64_t w = wa; w < wb; ++w) m = fmaxf(m, image[h * p.w + w]);
      y[i] = m;
    } else {
      float sum = 0.f;
      for (std::int64_t h = ha; h < hb; ++h)
        for (std::int64_t w = wa; w < wb; ++w) sum += image[h * p.w + w];
      // count_include_pad: the window clipped to the padded input (PyTorch's ceil_mode rule).
      std::int64_t count = p.count_include_pad
                               ? (imin(h0 + p.kernel_h, p.h + p.pad_bottom) - h0) * (imin(w0 + p.kernel_w, p.w + p.pad_right) - w0)
                               : (hb - ha) * (wb - wa);
      y[i] = sum / static_cast<float>(count);
    }
  }
}

__global__ void resize_kernel(ResizeLayout r, ResizeTap const* __restrict__ table, float const* __restrict__ x, float* __restrict__ y,
                              std::int64_t n) {
  for (std::int64_t i = detail::global_index(); i < n; i += detail::grid_stride()) {
    // Output index per dimension; the offset of the unresized dimensions; each resized
    // dimension's tap row.
    std::int64_t in_stride[max_rank];
    ResizeTap const* rows[max_rank];
    std::int64_t rem = i, base = 0, stride = 1, combos = 1;
    bool outside = false;
    for (int d = r.rank - 1; d >= 0; --d) {
      std::int64_t j = rem % r.out_shape[d];
      rem /= r.out_shape[d];
      in_stride[d] = stride;
      if (r.taps[d] > 0) {
        rows[d] = table + r.first[d] + j * r.taps[d];
        outside = outside || rows[d][0].index < 0;
        combos *= r.taps[d];
      } else {
        rows[d] = nullptr;
        base += j * stride;
      }
      stride *= r.in_shape[d];
    }
    if (outside) {
      y[i] = r.extrapolation_value;
      continue;
    }
    float acc = 0.f;
    for (std::int64_t c = 0; c < combos; ++c) {
      std::int64_t cr = c, off = base;
      float w = 1.f;
      for (int d = r.rank - 1; d >= 0; --d) {
        if (!rows[d]) continue;
        ResizeTap t = rows[d][cr % r.taps[d]];
        cr /= r.taps[d];
        w *= t.weight;
        off += static_cast<std::int64_t>(t.index) * in_stride[d];
      }
      if (w != 0.f) acc += w * x[off];
    }
    y[i] = acc;
  }
}

}  // namespace

void pool2d(PoolLayout const& p, float const* x, float* y, cudaStream_t s) {
  std::int64_t n = p.planes * p.out_h * p.out_w;
  if (n == 0) return;
  pool2d_kernel<<<blocks_for(n), block_threads, 0, s>>>(p, x, y, n);
  check_launch("pool2d kernel");
}

void resize(ResizeLayout const& r, ResizeTap const* table, float const* x, float* y, cudaStream_t s) {
  std::int64_t n = 1;
  for (int d = 0; d < r.rank; ++d) n *= r.out_shape[d];
  if (n == 0) return;
  resize_kernel<<<blocks_for(n), block_threads, 0, s>>>(r, table, x, y, n);
  check_launch("resize kernel");
}

}  // namespace autograph::cuda::kernels
