// How many thread blocks cuDNN's and cuBLAS's kernels launch, and what that leaves of the
// device: the fused Winograd kernel's 32x32 blocks of all 16 transformed points, and whole
// waves of tiles (roofline.hpp).
#include <autograph/cost/device.hpp>
#include <autograph/cost/roofline.hpp>
#include <autograph/graph/builder.hpp>
#include <autograph/graph/stats.hpp>
#include <gtest/gtest.h>

namespace autograph {
namespace {

KernelCost cost_of(DeviceSpec const& d, Graph<> const& g, Value v) {
  auto in = input_descs(g, v.node);
  return RooflineCost(d).estimate(g[v.node].op, in, g[v.node].outputs);
}

// ResNet-34's last stage at batch 1: 7x7 maps of 512 channels, a 3x3 stride-1 convolution.
struct LastStage {
  Graph<> g;
  Value y;
  explicit LastStage(std::int64_t batch) {
    GraphBuilder b;
    y = b.conv2d(b.input("x", {batch, 512, 7, 7}), 512, {3, 3});
    g = b.graph();
  }
};

TEST(KernelBlocks, TheFusedWinogradKernelComputesAllSixteenPointsOfItsTilesInOneBlock) {
  LastStage s(1);
  DeviceSpec const& v100 = devices::V100::spec;  // no TF32: FP32 convolutions on CUDA cores
  auto c = cost_of(v100, s.g, s.y);
  // 4x4 = 16 output tiles of 2x2 (one block of 32) x 512 channels (16 blocks of 32): 16 blocks
  // of 160 slots, each 16 points x 32 x 32 x 512 multiply-adds. The direct GEMM (49 rows, one
  // 64-row tile, x 8 channel tiles, K = 4608) does more work per block on fewer blocks.
  EXPECT_NEAR(c.fill, 16.0 / 160, 1e-12);
  EXPECT_NEAR(c.us, v100.launch_us + 2.0 * 16 * 16 * 32 * 32 * 512 / (v100.fp32_per_us() * 16 / 160), 1e-9);
}

TEST(KernelBlocks, ABatchOneWinogradConvolutionLeavesTheSmsOfALargerDeviceIdle) {
  // The same per-SM rate on twice the SMs: a convolution of 16 blocks runs no faster; at batch
  // 32 (512 tiles: 16 blocks of 32, by 16 channel blocks = 256 blocks) two waves of the V100's
  // 160 slots become one of 320, twice as fast.
  DeviceSpec const& v100 = devices::V100::spec;
  DeviceSpec twice = v100;
  twice.sm_count *= 2;
  twice.fp32_tflops *= 2;
  twice.bandwidth_gbs *= 2;
  LastStage one(1), many(32);
  EXPECT_NEAR(cost_of(twice, one.g, one.y).us, cost_of(v100, one.g, one.y).us, 1e-9);
  double wide = cost_of(twice, many.g, many.y).us - twice.launch_us, narrow = cost_of(v100, many.g, many.y).us - v100.launch_us;
  EXPECT_NEAR(narrow / wide, 2.0, 0.05);
}

TEST(KernelBlocks, TilesBeyondAFullDeviceRunInWholeWaves) {
  // V100: 160 tile slots. A GEMM of 161 tiles of 64x64 (K = 256, too many tiles for split-K)
  // takes two waves, twice the time of 160 tiles; compute-bound on CUDA cores either way.
  DeviceSpec const& v100 = devices::V100::spec;
  auto gemm = [&](std::int64_t tiles) {
    GraphBuilder b;
    auto y = b.matmul(b.input("a", {64 * tiles, 256}), b.input("w", {256, 64}));
    auto g = b.graph();
    return cost_of(v100, g, y);
  };
  auto full = gemm(160), over = gemm(161);
  EXPECT_NEAR(full.us, v100.launch_us + 2.0 * 160 * 64 * 64 * 256 / v100.fp32_per_us(), 1e-9);
  EXPECT_NEAR(over.us - v100.launch_us, 2 * (full.us - v100.launch_us), 1e-9);
  EXPECT_DOUBLE_EQ(over.fill, 1.0);
}

}  // namespace
}  // namespace autograph
