// The kernels' launch geometry (autograph/cuda/launch_geometry.hpp), checked on the host with
// the very functions the kernels call: every item covered exactly once, grids within CUDA's
// limits, at the sizes where a capped grid or a 32-bit loop index used to lose items (issue
// 16: rows past 2^23 of a warp-per-row softmax never computed; a 32-bit grid-stride index
// wrapping negative once n > 2^31 - 1 - 2^28).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "autograph/cuda/launch_geometry.hpp"

namespace autograph::cuda::kernels::geometry {
namespace {

/// A launch: `blocks` blocks of `threads` threads, each block `per_block` units (threads,
/// warps or the block itself) that each run the grid-stride loop.
struct Launch {
  unsigned blocks, threads, per_block;
};

void expect_within_cuda_limits(Launch l) {
  EXPECT_GE(l.blocks, 1u);
  EXPECT_LE(static_cast<std::int64_t>(l.blocks), max_grid_x);
  EXPECT_LE(static_cast<std::int64_t>(l.blocks), max_blocks);
  EXPECT_LE(static_cast<std::int64_t>(l.threads), max_threads_per_block);
  EXPECT_EQ(l.threads % warp_size, 0u);
}

/// The items unit `unit` of block `block` visits below n, as the kernels' loop runs.
std::vector<std::int64_t> visits(Launch l, unsigned block, unsigned unit, std::int64_t n) {
  std::vector<std::int64_t> items;
  for (std::int64_t i = first_item(block, l.per_block, unit); i < n; i += item_stride(l.blocks, l.per_block)) items.push_back(i);
  return items;
}

/// Every item below n is visited by exactly one unit: units start at distinct items of
/// [0, stride) and step by stride, so item i belongs to the unit starting at i % stride
/// alone; that unit must exist and its loop must reach i. Checked for `samples` (the first
/// and last items, the grid's seams, the 2^31 boundary) without walking all of n.
void expect_covers_exactly_once(Launch l, std::int64_t n, std::vector<std::int64_t> const& samples) {
  std::int64_t stride = item_stride(l.blocks, l.per_block);
  ASSERT_EQ(stride, static_cast<std::int64_t>(l.blocks) * l.per_block);
  // The grid's units start at 0, 1, ..., stride - 1, in order (sampled blocks, every unit).
  for (unsigned b : {0u, 1u, l.blocks / 2, l.blocks - 1})
    for (unsigned u = 0; u < l.per_block; ++u) ASSERT_EQ(first_item(b, l.per_block, u), static_cast<std::int64_t>(b) * l.per_block + u);
  // The loop never leaves the 64-bit range: its last value is below n + stride.
  EXPECT_LE(n - 1, std::numeric_limits<std::int64_t>::max() - stride);
  for (std::int64_t i : samples) {
    ASSERT_GE(i, 0);
    ASSERT_LT(i, n);
    std::int64_t start = i % stride;
    auto block = static_cast<unsigned>(start / l.per_block), unit = static_cast<unsigned>(start % l.per_block);
    ASSERT_LT(block, l.blocks) << "item " << i;
    auto items = visits(l, block, unit, n);
    EXPECT_EQ(std::ranges::count(items, i), 1) << "item " << i;
    EXPECT_TRUE(std::ranges::is_sorted(items));
    // The unit's last item is within one stride of the end: no item past it is left over.
    ASSERT_FALSE(items.empty());
    EXPECT_GE(items.back(), n - stride);
  }
}

static_assert(std::is_same_v<decltype(first_item(0, 0, 0)), std::int64_t> && std::is_same_v<decltype(item_stride(0, 0)), std::int64_t>,
              "the grid-stride loop index is 64-bit");
static_assert(block_threads % warp_size == 0 && block_threads <= max_threads_per_block);
static_assert(rows_per_block * warp_size == block_threads, "the warp-per-row kernels give every warp of a block a row");

TEST(LaunchGeometry, BlocksForCapsTheGridAtAMillionAndNeverLaunchesNone) {
  EXPECT_EQ(blocks_for(0), 1u);
  EXPECT_EQ(blocks_for(1), 1u);
  EXPECT_EQ(blocks_for(256), 1u);
  EXPECT_EQ(blocks_for(257), 2u);
  EXPECT_EQ(blocks_for(std::int64_t{1} << 28), 1u << 20);
  EXPECT_EQ(blocks_for((std::int64_t{1} << 28) + 1), 1u << 20);
  EXPECT_EQ(blocks_for(std::int64_t{1} << 62), 1u << 20);
  EXPECT_EQ(blocks_for(9'000'000, rows_per_block), 1u << 20);
  EXPECT_EQ(blocks_for(9'000'000, 1), 1u << 20);
  EXPECT_EQ(blocks_for(1000, 1), 1000u);
}

TEST(LaunchGeometry, ElementwiseLoopCoversTwoToThe31PlusFiveOnce) {
  std::int64_t n = (std::int64_t{1} << 31) + 5;
  Launch l{blocks_for(n), block_threads, block_threads};
  expect_within_cuda_limits(l);
  std::int64_t stride = item_stride(l.blocks, l.per_block);
  EXPECT_EQ(stride, std::int64_t{1} << 28);
  expect_covers_exactly_once(l, n,
                             {0, 1, 255, 256, stride - 1, stride, stride + 1, (std::int64_t{1} << 31) - (std::int64_t{1} << 28) - 1,
                              (std::int64_t{1} << 31) - (std::int64_t{1} << 28), std::numeric_limits<std::int32_t>::max() - 1,
                              std::numeric_limits<std::int32_t>::max(), std::int64_t{1} << 31, n - 2, n - 1});
  // The last threads of the grid pass 2^31 - 1 on their last step: a 32-bit index would
  // have wrapped negative there (the defect); the 64-bit one ends past n.
  auto items = visits(l, l.blocks - 1, block_threads - 1, n);
  std::int64_t after_last = items.back() + stride;
  EXPECT_GT(after_last, std::numeric_limits<std::int32_t>::max());
  EXPECT_GE(after_last, n);
}

TEST(LaunchGeometry, ThirtyTwoBitOffsetsOnlyWhereEveryOffsetFits) {
  EXPECT_TRUE(fits_int32(0));
  EXPECT_TRUE(fits_int32(std::numeric_limits<std::int32_t>::max() - 1));
  EXPECT_FALSE(fits_int32(std::numeric_limits<std::int32_t>::max()));
  EXPECT_FALSE(fits_int32((std::int64_t{1} << 31) + 5));
  // Just below the 32-bit path's bound, where the old 32-bit loop wrapped: covered once.
  std::int64_t n = std::numeric_limits<std::int32_t>::max() - 1;
  Launch l{blocks_for(n), block_threads, block_threads};
  expect_covers_exactly_once(l, n, {0, n - (std::int64_t{1} << 28), n - 1});
}

/// Every row of `rows` visited exactly once, walking every unit of the grid (one bitmap of
/// rows; 9 million rows take a few tens of milliseconds).
void expect_rows_covered(Launch l, std::int64_t rows) {
  std::vector<unsigned char> seen(static_cast<std::size_t>(rows), 0);
  std::int64_t stride = item_stride(l.blocks, l.per_block);
  std::int64_t twice = 0;
  for (unsigned b = 0; b < l.blocks; ++b)
    for (unsigned u = 0; u < l.per_block; ++u)
      for (std::int64_t r = first_item(b, l.per_block, u); r < rows; r += stride) twice += seen[static_cast<std::size_t>(r)]++ != 0;
  EXPECT_EQ(twice, 0);
  EXPECT_EQ(std::ranges::count(seen, 0), 0) << "rows never computed";
}

TEST(LaunchGeometry, WarpPerRowKernelsCoverNineMillionRows) {
  // softmax and layer norm of rows up to 1024: a warp per row, 8 rows per block. The grid is
  // capped at 2^20 blocks = 8,388,608 warps; the rows past that are the second lap's.
  std::int64_t rows = 9'000'000;
  Launch l{blocks_for(rows, rows_per_block), block_threads, rows_per_block};
  expect_within_cuda_limits(l);
  EXPECT_LT(item_stride(l.blocks, l.per_block), rows);
  expect_rows_covered(l, rows);
  expect_covers_exactly_once(l, rows, {0, 7, 8, (std::int64_t{1} << 23) - 1, std::int64_t{1} << 23, rows - 1});
}

TEST(LaunchGeometry, BlockPerRowKernelsCoverNineMillionRows) {
  // Rows longer than 1024: a block per row (the grid used to be one block per row, uncapped).
  std::int64_t rows = 9'000'000;
  Launch l{blocks_for(rows, 1), block_threads, 1};
  expect_within_cuda_limits(l);
  expect_rows_covered(l, rows);
}

TEST(LaunchGeometry, SmallLaunchesCoverExactlyTheirItems) {
  for (std::int64_t n : {1, 5, 255, 256, 257, 1000, 4096 + 3}) {
    Launch l{blocks_for(n), block_threads, block_threads};
    expect_within_cuda_limits(l);
    expect_rows_covered(l, n);
    Launch w{blocks_for(n, rows_per_block), block_threads, rows_per_block};
    expect_rows_covered(w, n);
  }
}

// bias_activation's grid (issue 16, defect 1): block rows take the planes (a channel of an
// image) in a grid-stride loop over y, blocks along x the items of a plane, 32-bit inside a
// plane where plane_fits_int32 says so.
void expect_plane_grid_covers(std::int64_t planes, std::int64_t inner) {
  PlaneGrid g = plane_grid(planes, inner);
  EXPECT_GE(g.y, 1u);
  EXPECT_LE(static_cast<std::int64_t>(g.y), max_grid_yz) << planes << " planes";
  EXPECT_LE(static_cast<std::int64_t>(g.x) * g.y, max_blocks) << planes << " x " << inner;
  expect_within_cuda_limits({g.x, block_threads, block_threads});
  // Plane p is taken by block row p % y alone, and its loop reaches p.
  for (std::int64_t p : {std::int64_t{0}, planes / 2, planes - 1}) {
    std::int64_t row = p % g.y, hits = 0;
    for (std::int64_t q = row; q < planes; q += g.y) hits += q == p;
    EXPECT_EQ(hits, 1) << "plane " << p;
  }
  if (inner <= 100'000) expect_rows_covered({g.x, block_threads, block_threads}, inner);
}

TEST(LaunchGeometry, PlaneGridCoversEveryPlaneWithinCudasLimits) {
  expect_plane_grid_covers(1, 1);
  expect_plane_grid_covers(32 * 64, 147 * 147);     // Inception-v3's first convolutions, batch 32
  expect_plane_grid_covers(32 * 2048, 8 * 8);       // 65,536 planes: one more than grid.y can hold
  expect_plane_grid_covers(10'000'000, 1);          // a bias over a [10^7, 1] matrix
  expect_plane_grid_covers(1, std::int64_t{1} << 33);  // one plane past 2^32 (an activation alone)
  EXPECT_EQ(plane_grid(32 * 2048, 64).y, static_cast<unsigned>(max_grid_yz));
  EXPECT_EQ(plane_grid(5, 1000).y, 5u);
  EXPECT_EQ(plane_grid(std::int64_t{1} << 20, std::int64_t{1} << 28).y, 1u);  // x alone already at max_blocks
}

TEST(LaunchGeometry, PlaneItemsIndexInThirtyTwoBitsOnlyWhereTheLoopCannotWrap) {
  EXPECT_TRUE(plane_fits_int32(147 * 147, plane_grid(32 * 64, 147 * 147)));
  std::int64_t big = std::numeric_limits<std::int32_t>::max() - 1000;  // fits alone, not with a stride added
  EXPECT_TRUE(fits_int32(big));
  EXPECT_FALSE(plane_fits_int32(big, plane_grid(1, big)));
  EXPECT_FALSE(plane_fits_int32(std::int64_t{1} << 33, plane_grid(1, std::int64_t{1} << 33)));
  // The largest inner that takes the 32-bit path: its loop's last index still below 2^31 - 1.
  std::int64_t edge = std::numeric_limits<std::int32_t>::max() - 1 - (std::int64_t{1} << 28);
  PlaneGrid g = plane_grid(1, edge);
  EXPECT_TRUE(plane_fits_int32(edge, g));
  EXPECT_LE(edge + item_stride(g.x, block_threads), std::numeric_limits<std::int32_t>::max() - 1);
}

}  // namespace
}  // namespace autograph::cuda::kernels::geometry
