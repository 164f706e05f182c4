#pragma once
// The tiles of the CUDA runtime's fused attention kernel (src/cuda/attention.cu): how many
// query rows and keys a thread block holds at once, the head-dimension bound it is compiled
// for, the shared memory that takes, and the grid. The kernel and the lowering both call these
// functions, and host tests check them (test/cuda/host/attention_tiles_test.cpp), so the
// configuration is tested without a GPU. Plain C++17 with no library headers: nvcc compiles it.
//
// The kernel is FlashAttention's forward pass (Dao et al. 2022, Alg. 1) in FP32 on CUDA
// cores: a thread block per (batch matrix, tile of block_q query rows) keeps its q rows in
// shared memory and walks the keys block_k at a time, each key tile of kT and v staged in
// shared memory; it keeps per row the running maximum m, the running sum l and the output
// accumulator, rescaled by exp(m_old - m_new) whenever the maximum grows (the online softmax,
// Milakov and Gimelshein 2018), so the scores exist only as one block_q x block_k tile in
// shared memory and never in global memory.
#include <cstddef>
#include <cstdint>

#include "autograph/cuda/launch_geometry.hpp"

namespace autograph::cuda::kernels::attention {

/// Threads per block: four warps.
inline constexpr int threads = 128;
/// Keys per tile: one per lane, so a row's maximum and sum over a tile are one warp reduction.
inline constexpr int keys_per_tile = 32;
/// The largest head dimension (D of q and kT, Dv of v) any configuration holds; the lowering
/// rejects larger ones (a Dv of 256 would need 64 accumulators per thread, or a second pass).
inline constexpr std::int64_t max_head_dim = 128;
/// Shared memory a block may take without opting in (cudaFuncAttributeMaxDynamicSharedMemorySize):
/// 48 KiB on every architecture since compute capability 3.0 (CUDA C++ Programming Guide,
/// "Shared Memory"). Staying under it keeps the launch free of attribute calls.
inline constexpr std::size_t default_shared_limit = 48 * 1024;

/// One compiled configuration: block_q query rows, block_k keys, head dimensions up to head_dim.
struct Tiles {
  int block_q = 0, block_k = 0, head_dim = 0;
  /// Each thread's share of a row's output: head_dim columns over the threads of one row.
  AUTOGRAPH_HOST_DEVICE constexpr int threads_per_row() const { return threads / block_q; }
  AUTOGRAPH_HOST_DEVICE constexpr int columns_per_thread() const { return head_dim / threads_per_row(); }
};

/// The configurations the kernel is compiled for: up to 64 (ViT-B's and BERT's 64-wide heads)
/// with 32 query rows; up to 128 with 16 rows, so the larger kT and v tiles still fit 48 KiB.
inline constexpr Tiles narrow_heads{32, keys_per_tile, 64};
inline constexpr Tiles wide_heads{16, keys_per_tile, 128};

/// The configuration for head dimensions d (q, kT) and dv (v).
/// @pre 0 <= d, dv <= max_head_dim
constexpr Tiles tiles_for(std::int64_t d, std::int64_t dv) {
  return d <= narrow_heads.head_dim && dv <= narrow_heads.head_dim ? narrow_heads : wide_heads;
}

/// Floats of shared memory, in the kernel's order: the q tile [block_q][d], the kT tile
/// [d][block_k], the v tile [block_k][dv], the probabilities [block_q][block_k + 1] (one
/// float of padding per row, so rows fall in different banks), and per row m, l and the
/// rescale factor of the last tile.
AUTOGRAPH_HOST_DEVICE constexpr std::int64_t shared_floats(Tiles t, std::int64_t d, std::int64_t dv) {
  return t.block_q * d + d * t.block_k + t.block_k * dv + t.block_q * (t.block_k + 1) + 3 * t.block_q;
}
AUTOGRAPH_HOST_DEVICE constexpr std::size_t shared_bytes(Tiles t, std::int64_t d, std::int64_t dv) {
  return static_cast<std::size_t>(shared_floats(t, d, dv)) * sizeof(float);
}

/// Query tiles of one matrix of tq rows.
AUTOGRAPH_HOST_DEVICE constexpr std::int64_t query_tiles(Tiles t, std::int64_t tq) { return (tq + t.block_q - 1) / t.block_q; }
/// Blocks of a launch over `batch` matrices: one per (matrix, query tile), capped as every
/// launch is (launch_geometry.hpp); the kernel loops over the tiles with the grid's stride.
AUTOGRAPH_HOST_DEVICE constexpr unsigned blocks(Tiles t, std::int64_t batch, std::int64_t tq) {
  return geometry::blocks_for(batch * query_tiles(t, tq), 1);
}

}  // namespace autograph::cuda::kernels::attention
