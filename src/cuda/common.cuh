#pragma once
// What the kernel files share: launch geometry, grid-stride loops, warp and block reductions.
// Included only by the .cu files in this folder.
#include <cstdint>

#include "autograph/cuda/error.hpp"
#include "autograph/cuda/kernels.hpp"
#include "autograph/cuda/launch_geometry.hpp"

namespace autograph::cuda::kernels::detail {

using geometry::block_threads;
using geometry::blocks_for;
using geometry::fits_int32;

/// This thread's first item and the grid's step, for one thread per item (launch_geometry.hpp):
/// 64-bit, so the loop's last step past n cannot wrap.
__device__ __forceinline__ std::int64_t global_index() { return geometry::first_item(blockIdx.x, blockDim.x, threadIdx.x); }
__device__ __forceinline__ std::int64_t grid_stride() { return geometry::item_stride(gridDim.x, blockDim.x); }

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
