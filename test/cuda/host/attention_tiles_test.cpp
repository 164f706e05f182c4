// The fused attention kernel's tiles (autograph/cuda/attention_tiles.hpp), checked with the
// functions the kernel and its launch call: every head dimension up to the bound gets a
// configuration whose shared memory fits the 48 KiB a block takes without opting in, whose
// threads split the output rows and the score tile evenly, and whose grid visits every
// (matrix, query tile) exactly once within CUDA's limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "autograph/cuda/attention_tiles.hpp"

namespace autograph::cuda::kernels::attention {
namespace {

TEST(AttentionTiles, EveryHeadDimensionFitsItsConfiguration) {
  for (std::int64_t d = 0; d <= max_head_dim; ++d)
    for (std::int64_t dv = 0; dv <= max_head_dim; ++dv) {
      Tiles t = tiles_for(d, dv);
      ASSERT_GE(t.head_dim, d);
      ASSERT_GE(t.head_dim, dv);
      ASSERT_LE(shared_bytes(t, d, dv), default_shared_limit) << "d " << d << " dv " << dv;
    }
  // The narrow tiles serve the 64-wide heads of ViT-B and BERT; anything wider takes the others.
  EXPECT_EQ(tiles_for(64, 64).block_q, 32);
  EXPECT_EQ(tiles_for(64, 65).block_q, 16);
  EXPECT_EQ(tiles_for(128, 1).head_dim, 128);
  EXPECT_EQ(shared_bytes(wide_heads, 128, 128), (16 * 128 + 128 * 32 + 32 * 128 + 16 * 33 + 3 * 16) * sizeof(float));
}

TEST(AttentionTiles, ThreadsSplitRowsAndScoresEvenly) {
  for (Tiles t : {narrow_heads, wide_heads}) {
    EXPECT_EQ(t.block_k, geometry::warp_size);  // a warp reduces a row of the score tile
    EXPECT_EQ(threads % geometry::warp_size, 0);
    EXPECT_EQ(t.threads_per_row() * t.block_q, threads);
    EXPECT_EQ(t.columns_per_thread() * t.threads_per_row(), t.head_dim);
    EXPECT_EQ(t.block_q * t.block_k % threads, 0);
    EXPECT_LE(t.columns_per_thread(), 32);  // accumulators per thread, in registers
  }
}

TEST(AttentionTiles, TheGridVisitsEveryQueryTileOnce) {
  struct Case {
    std::int64_t batch, tq;
  };
  for (Tiles t : {narrow_heads, wide_heads})
    for (Case c : {Case{12, 197}, Case{1, 1}, Case{3, 16}, Case{7, 33}, Case{100000, 4096}}) {
      std::int64_t tiles = c.batch * query_tiles(t, c.tq);
      unsigned grid = blocks(t, c.batch, c.tq);
      ASSERT_GE(grid, 1u);
      ASSERT_LE(static_cast<std::int64_t>(grid), geometry::max_blocks);
      EXPECT_EQ(query_tiles(t, c.tq) * t.block_q >= c.tq && (query_tiles(t, c.tq) - 1) * t.block_q < c.tq, true);
      if (tiles <= geometry::max_blocks) {
        EXPECT_EQ(static_cast<std::int64_t>(grid), tiles);  // one block per tile, no loop
        continue;
      }
      // Capped: block b takes tiles b, b + grid, ... (the kernel's loop); count the visits.
      std::vector<char> seen(static_cast<std::size_t>(tiles), 0);
      for (unsigned b = 0; b < grid; ++b)
        for (std::int64_t tile = b; tile < tiles; tile += grid) ++seen[static_cast<std::size_t>(tile)];
      EXPECT_EQ(std::count(seen.begin(), seen.end(), char{1}), tiles);
    }
}

}  // namespace
}  // namespace autograph::cuda::kernels::attention
