#pragma once
// Launch geometry of the runtime's own kernels (src/cuda/*.cu): how many blocks a launch
// takes, and which items (elements, rows) each thread, warp or block of the grid visits.
// The kernels call these functions, and host tests check the same functions for coverage
// and CUDA's limits (test/cuda/host/launch_geometry_test.cpp), so the geometry is tested
// without a GPU. Plain C++17, no library headers: nvcc compiles it (the kernels are C++17,
// and nvcc 13 cannot compile range-v3).
//
// Every launch is a grid-stride loop over "units" (a thread per element, a warp or a block
// per row), `per_block` units to a block: unit u of block b starts at item b * per_block + u
// and steps by blocks * per_block. The grid is capped (max_blocks), so the loop, not the
// grid, covers large counts; its index is 64-bit, since its last step passes n by up to a
// whole grid (2^28 threads), which a 32-bit index cannot hold once n nears 2^31.
#include <cstdint>

#if defined(__CUDACC__)
#define AUTOGRAPH_HOST_DEVICE __host__ __device__
#else
#define AUTOGRAPH_HOST_DEVICE
#endif

namespace autograph::cuda::kernels::geometry {

/// Threads per block of the elementwise and row kernels (a whole number of warps).
inline constexpr int block_threads = 256;
inline constexpr int warp_size = 32;
/// Rows per block of the warp-per-row kernels (softmax and layer norm of rows up to 1024).
inline constexpr int rows_per_block = block_threads / warp_size;
/// The most blocks a launch takes: a million blocks already fill any GPU many times over.
inline constexpr std::int64_t max_blocks = std::int64_t{1} << 20;

/// CUDA's limits on a launch (compute capability 3.0 and later).
inline constexpr std::int64_t max_grid_x = 2147483647, max_grid_yz = 65535, max_threads_per_block = 1024;

/// Blocks for n units at `per_block` units per block: enough for one unit per item, at
/// least 1 and at most max_blocks (the grid-stride loop covers the rest).
/// @pre n >= 0, per_block >= 1
AUTOGRAPH_HOST_DEVICE constexpr unsigned blocks_for(std::int64_t n, std::int64_t per_block = block_threads) {
  std::int64_t b = (n + per_block - 1) / per_block;
  return static_cast<unsigned>(b < 1 ? 1 : b > max_blocks ? max_blocks : b);
}

/// The first item unit `unit` of block `block` visits: block * per_block + unit.
AUTOGRAPH_HOST_DEVICE constexpr std::int64_t first_item(unsigned block, unsigned per_block, unsigned unit) {
  return static_cast<std::int64_t>(block) * per_block + unit;
}
/// The step of the grid-stride loop in a grid of `blocks` blocks: every unit of the grid once.
AUTOGRAPH_HOST_DEVICE constexpr std::int64_t item_stride(unsigned blocks, unsigned per_block) {
  return static_cast<std::int64_t>(blocks) * per_block;
}

/// True when every offset below n (and n itself) fits a 32-bit index: the general (div/mod)
/// kernels then decompose indices with 32-bit arithmetic, several times cheaper than 64-bit.
/// The loop index stays 64-bit (see the header comment).
AUTOGRAPH_HOST_DEVICE constexpr bool fits_int32(std::int64_t n) { return n < 2147483647; }

/// The grid of a launch over `planes` planes of `inner` items each (bias_activation: a plane
/// is one channel of one image): blocks along x cover a plane's items, block rows along y take
/// the planes (a grid-stride loop over planes in steps of y). A thread then finds its channel
/// once per plane, not by a 64-bit division per item. y is at most CUDA's 65535 and x * y at
/// most max_blocks; both loops cover what the grid does not.
struct PlaneGrid {
  unsigned x = 1, y = 1;
};
/// @pre planes >= 0, inner >= 0
AUTOGRAPH_HOST_DEVICE constexpr PlaneGrid plane_grid(std::int64_t planes, std::int64_t inner) {
  unsigned x = blocks_for(inner);
  std::int64_t rows = max_blocks / x;
  if (rows > max_grid_yz) rows = max_grid_yz;
  if (rows > planes) rows = planes;
  return PlaneGrid{x, static_cast<unsigned>(rows < 1 ? 1 : rows)};
}
/// True when the items of a plane index in 32 bits under grid g: the x loop's last index,
/// below inner plus its stride, fits (the plane's start stays a 64-bit offset).
AUTOGRAPH_HOST_DEVICE constexpr bool plane_fits_int32(std::int64_t inner, PlaneGrid g) {
  return fits_int32(inner + item_stride(g.x, block_threads));
}

}  // namespace autograph::cuda::kernels::geometry
