#pragma once
// What the kernel files share: launch geometry, grid-stride loops, warp and block reductions.
// Included only by the .cu files in this folder.
#include <cstdint>
#include <limits>

#include "autograph/cuda/error.hpp"
#include "autograph/cuda/kernels.hpp"

namespace autograph::cuda::kernels::detail {

inline constexpr int block_threads = 256;

/// Blocks for n items at `per_block` items per block; grid-stride loops cover the rest when
/// the grid is capped (a million blocks already fill any GPU many times over).
inline unsigned blocks_for(std::int64_t n, std::int64_t per_block = block_threads) {
  std::int64_t b = (n + per_block - 1) / per_block;
  return static_cast<unsigned>(b < 1 ? 1 : b > (1 << 20) ? (1 << 20) : b);
}

/// True when every offset below n (and n itself) fits a 32-bit index: the general
/// (div/mod) kernels then run with 32-bit arithmetic, several times cheaper than 64-bit.
inline bool fits_int32(std::int64_t n) { return n < std::numeric_limits<std::int32_t>::max(); }

template <class I>
__device__ __forceinline__ I global_index() {
  return static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
}
template <class I>
__device__ __forceinline__ I grid_stride() {
  return static_cast<I>(gridDim.x) * static_cast<I>(blockDim.x);
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

/// Sum (or max) over the block; every thread gets the result. `scratch` holds 32 floats;
/// blockDim.x is a multiple of 32. Ends with a barrier, so scratch may be reused after it.
template <bool Max>
__device__ float block_reduce(float v, float* scratch) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  v = Max ? warp_max(v) : warp_sum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float r = lane < warps ? scratch[lane] : (Max ? -INFINITY : 0.f);
  r = Max ? warp_max(r) : warp_sum(r);
  __syncthreads();
  return r;
}

}  // namespace autograph::cuda::kernels::detail
