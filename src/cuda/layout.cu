// Data movement: strided copies (transpose, slice, concat and split pieces), constant
// padding (Pad, Enlarge, asymmetric convolution padding) and the transposed convolution's
// crop + bias epilogue. The host coalesces dimensions before calling, so the index
// arithmetic here usually runs over two or three dimensions.
#include <cuda_runtime.h>

#include "common.cuh"

namespace autograph::cuda::kernels {
namespace {

using detail::blocks_for;
using detail::block_threads;

// Offsets in I (32-bit when every offset fits); the loop index is always 64-bit.
template <class I>
__global__ void copy_strided_kernel(StridedCopy c, float const* __restrict__ src, float* __restrict__ dst, std::int64_t n) {
  for (std::int64_t i = detail::global_index(); i < n; i += detail::grid_stride()) {
    I rem = static_cast<I>(i), os = 0, od = 0;
#pragma unroll
    for (int d = max_rank - 1; d >= 0; --d) {
      if (d >= c.rank) continue;
      I dim = static_cast<I>(c.shape[d]);
      I idx = rem % dim;
      rem /= dim;
      os += idx * static_cast<I>(c.src_stride[d]);
      od += idx * static_cast<I>(c.dst_stride[d]);
    }
    dst[od] = src[os];
  }
}

template <class I>
__global__ void pad_kernel(PadLayout p, float value, float const* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  for (std::int64_t i = detail::global_index(); i < n; i += detail::grid_stride()) {
    I rem = static_cast<I>(i), ox = 0, stride = 1;
    bool inside = true;
#pragma unroll
    for (int d = max_rank - 1; d >= 0; --d) {
      if (d >= p.rank) continue;
      I dim = static_cast<I>(p.out_shape[d]);
      I idx = rem % dim - static_cast<I>(p.before[d]);
      rem /= dim;
      inside = inside && idx >= 0 && idx < static_cast<I>(p.in_shape[d]);
      ox += idx * stride;
      stride *= static_cast<I>(p.in_shape[d]);
    }
    y[i] = inside ? x[ox] : value;
  }
}

__global__ void crop_bias_kernel(CropLayout c, float const* __restrict__ full, float const* __restrict__ bias, float* __restrict__ y,
                                 std::int64_t n) {
  for (std::int64_t i = detail::global_index(); i < n; i += detail::grid_stride()) {
    std::int64_t j = i % c.out_w, r = i / c.out_w;
    std::int64_t h = r % c.out_h, plane = r / c.out_h;  // plane = n * M + m
    std::int64_t fh = h + c.top, fw = j + c.left;
    float v = fh < c.full_h && fw < c.full_w ? full[(plane * c.full_h + fh) * c.full_w + fw] : 0.f;
    y[i] = v + (bias ? bias[plane % c.channels] : 0.f);
  }
}

}  // namespace

void copy_strided(StridedCopy const& c, float const* src, float* dst, cudaStream_t s) {
  std::int64_t n = 1;
  for (int d = 0; d < c.rank; ++d) n *= c.shape[d];
  if (n == 0) return;
  if (c.rank == 1 && c.src_stride[0] == 1 && c.dst_stride[0] == 1) {
    check(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
    return;
  }
  if (detail::fits_int32(n)) {
    std::int64_t reach = 0;  // the largest offset either side touches
    for (int d = 0; d < c.rank; ++d) reach += (c.shape[d] - 1) * (c.src_stride[d] > c.dst_stride[d] ? c.src_stride[d] : c.dst_stride[d]);
    if (detail::fits_int32(reach)) {
      copy_strided_kernel<std::int32_t><<<blocks_for(n), block_threads, 0, s>>>(c, src, dst, n);
      check_launch("copy_strided kernel");
      return;
    }
  }
  copy_strided_kernel<std::int64_t><<<blocks_for(n), block_threads, 0, s>>>(c, src, dst, n);
  check_launch("copy_strided kernel");
}

void pad(PadLayout const& p, float value, float const* x, float* y, cudaStream_t s) {
  std::int64_t n = 1, in = 1;
  for (int d = 0; d < p.rank; ++d) {
    n *= p.out_shape[d];
    in *= p.in_shape[d];
  }
  if (n == 0) return;
  if (detail::fits_int32(n) && detail::fits_int32(in))
    pad_kernel<std::int32_t><<<blocks_for(n), block_threads, 0, s>>>(p, value, x, y, n);
  else
    pad_kernel<std::int64_t><<<blocks_for(n), block_threads, 0, s>>>(p, value, x, y, n);
  check_launch("pad kernel");
}

void crop_bias(CropLayout const& c, float const* full, float const* bias, float* y, cudaStream_t s) {
  std::int64_t n = c.planes_n * c.channels * c.out_h * c.out_w;
  if (n == 0) return;
  crop_bias_kernel<<<blocks_for(n), block_threads, 0, s>>>(c, full, bias, y, n);
  check_launch("crop_bias kernel");
}

}  // namespace autograph::cuda::kernels
