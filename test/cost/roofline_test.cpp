// The roofline cost model: device specs, the two roofs, fill, memoisation, and the nodes that
// cost nothing at inference.
#include <autograph/cost/device.hpp>
#include <autograph/cost/inference_kernels.hpp>
#include <autograph/cost/roofline.hpp>
#include <autograph/graph/builder.hpp>
#include <autograph/models/zoo.hpp>
#include <gtest/gtest.h>

namespace autograph {
namespace {

static_assert(OpCostModel<RooflineCost>);
static_assert(Device<devices::H100> && Device<devices::RTX2080Ti> && !Device<int>);

KernelCost cost_of(RooflineCost const& m, Graph<> const& g, Value v) {
  auto in = input_descs(g, v.node);
  return m.estimate(g[v.node].op, in, g[v.node].outputs);
}

TEST(Devices, LookUpByKeyOrNameAndRejectUnknownNamesListingTheKnownOnes) {
  EXPECT_EQ(device_spec("h100").sm_count, 132);
  EXPECT_EQ(device_spec("H100 SXM").name, "H100 SXM");
  EXPECT_EQ(device_spec("RTX-2080-Ti").sm_count, 68);
  EXPECT_DOUBLE_EQ(device_spec("h200").bandwidth_gbs, 4800);
  try {
    device_spec("tpu");
    FAIL() << "expected an error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("h100"), std::string::npos) << e.what();
  }
}

TEST(Devices, H100ReachesTheMeasuredRates) {
  auto const& d = devices::H100::spec;
  EXPECT_NEAR(d.bytes_per_us(), 3.0e6, 1);                    // 3.0 TB/s = 3e6 bytes per microsecond
  EXPECT_NEAR(d.matrix_f16_per_us(), 798e6, 1);               // 798 TFLOP/s
  EXPECT_NEAR(d.matrix_f32_per_us(), 494.7 / 989.4 * 798e6, 1);
  EXPECT_EQ(devices::V100::spec.matrix_f32_per_us(), devices::V100::spec.fp32_per_us());  // no TF32 on Volta
  EXPECT_NEAR(d.fp32_per_us(), 51.6e6, 1);        // FP32 GEMM on CUDA cores, TF32 off
  EXPECT_NEAR(d.depthwise_per_us(), 3.02e6, 1);   // cuDNN's depthwise convolutions at best
}

TEST(Devices, K80ReachesKeplersPublishedSgemmFractionNotTheH100s) {
  auto const& k80 = devices::K80::spec;
  EXPECT_NEAR(k80.fp32_per_us(), 4.37e6 * 3.315 / 5.04, 1);  // cuBLAS 7.0 SGEMM on a K40 at 875 MHz: 3.32 of 5.04 TFLOP/s
  EXPECT_DOUBLE_EQ(k80.matrix_f16_per_us(), k80.fp32_per_us());  // FP16 data computed on the same CUDA cores
  EXPECT_LT(k80.fp32_per_us() / k80.fp32_tflops, devices::V100::spec.fp32_per_us() / devices::V100::spec.fp32_tflops);
}

TEST(Devices, WithoutTheirOwnFractionsCudaCoresAndDepthwiseKernelsRunAtTheComputeEfficiency) {
  DeviceSpec cpu{"test CPU", "test-cpu"};
  cpu.fp32_tflops = 2;
  cpu.compute_efficiency = 0.5;
  EXPECT_DOUBLE_EQ(cpu.fp32_per_us(), 1e6);
  EXPECT_DOUBLE_EQ(cpu.depthwise_per_us(), 1e6);
  cpu.cuda_core_efficiency = 0.25;
  EXPECT_DOUBLE_EQ(cpu.depthwise_per_us(), 0.5e6);
}

TEST(Roofline, ElementwiseKernelsAreBandwidthBound) {
  GraphBuilder b;
  auto x = b.input("x", {1, 256, 112, 112});  // 12.8 MB: fills the device
  auto y = b.relu(x);
  auto g = b.graph();
  RooflineCost m;
  auto c = cost_of(m, g, y);
  double bytes = 2.0 * 256 * 112 * 112 * 4;
  EXPECT_DOUBLE_EQ(c.fill, 1.0);
  EXPECT_NEAR(c.us, devices::H100::spec.launch_us + bytes / devices::H100::spec.bytes_per_us(), 1e-9);
  EXPECT_DOUBLE_EQ(c.latency_us, devices::H100::spec.launch_us);
}

TEST(Roofline, LargeConvolutionsAreComputeBoundOnTensorCores) {
  GraphBuilder b;
  auto x = b.input("x", {8, 256, 56, 56});
  auto y = b.conv2d(x, 256, {3, 3});
  auto g = b.graph();
  RooflineCost m;
  auto c = cost_of(m, g, y);
  EXPECT_DOUBLE_EQ(c.fill, 1.0);
  // 8*56*56 = 25088 rows = 392 tiles exactly, 256 channels = 4 tiles: no padding waste. The
  // 1568 tiles take 6 whole waves of the 264 slots (5.94 of them busy).
  double flops = 2.0 * 8 * 56 * 56 * 256 * 256 * 9;
  EXPECT_NEAR(c.us, devices::H100::spec.launch_us + flops * (6.0 * 264 / 1568) / devices::H100::spec.matrix_f32_per_us(), 1e-6);
}

TEST(Roofline, SmallKernelsFillLittleOfTheDeviceAndAreLatencyBound) {
  GraphBuilder b;
  auto x = b.input("x", {1, 64, 17, 17});
  auto y = b.conv2d(x, 64, {1, 1});
  auto z = b.relu(y);
  auto g = b.graph();
  RooflineCost m;
  auto conv = cost_of(m, g, y), relu = cost_of(m, g, z);
  EXPECT_NEAR(conv.fill, 5.0 / (2 * 132), 1e-12);  // ceil(289/64) = 5 tiles of 2*132 resident
  EXPECT_NEAR(relu.fill, 64.0 * 17 * 17 / (2048.0 * 132), 1e-12);
  EXPECT_LT(conv.us, 4 * devices::H100::spec.launch_us);
  EXPECT_GT(conv.us, devices::H100::spec.launch_us);
}

TEST(Roofline, DevicesRankAsTheirPeaksSay) {
  GraphBuilder b;
  auto x = b.input("x", {8, 256, 56, 56});
  auto y = b.conv2d(x, 256, {3, 3});
  auto g = b.graph();
  double h100 = cost_of(RooflineCost(devices::H100::spec), g, y).us;
  double a100 = cost_of(RooflineCost(devices::A100::spec), g, y).us;
  double v100 = cost_of(RooflineCost(devices::V100::spec), g, y).us;
  double turing = cost_of(RooflineCost(devices::RTX2080Ti::spec), g, y).us;
  EXPECT_LT(h100, a100);
  EXPECT_LT(a100, v100);  // TF32 tensor cores against FP32 CUDA cores
  EXPECT_LT(v100, turing);
}

TEST(Roofline, Float16MatmulsUseTheFp16TensorRate) {
  GraphBuilder b;
  auto a = b.input("a", {4096, 4096});
  auto w = b.input("w", {4096, 4096});
  auto y = b.matmul(a, w);
  auto g32 = b.graph();
  GraphBuilder b16;
  auto a16 = b16.input("a", {4096, 4096}, DType::float16);
  auto w16 = b16.input("w", {4096, 4096}, DType::float16);
  auto y16 = b16.matmul(a16, w16);
  auto g16 = b16.graph();
  RooflineCost m;
  double t32 = cost_of(m, g32, y).us - devices::H100::spec.launch_us;
  double t16 = cost_of(m, g16, y16).us - devices::H100::spec.launch_us;
  EXPECT_NEAR(t32 / t16, 2.0, 1e-9);  // 989.4 / 494.7
}

TEST(Roofline, BatchOneFullyConnectedLayersRunAsMatrixVectorProducts) {
  GraphBuilder b;
  auto x = b.input("x", {1, 2048});
  auto w = b.input("w", {2048, 1000});
  auto y = b.matmul(x, w);
  auto g = b.graph();
  DeviceSpec const& d = devices::V100::spec;
  auto c = cost_of(RooflineCost(d), g, y);
  // One thread per four of the 2M matrix elements fills the device; reading the matrix once
  // decides (a 64-row tile would compute 64 times the flops at 16 tiles' fill).
  EXPECT_DOUBLE_EQ(c.fill, 1.0);
  double bytes = 4.0 * (2048 + 2048 * 1000 + 1000);
  EXPECT_NEAR(c.us, d.launch_us + bytes / d.bytes_per_us(), 1e-9);
}

TEST(Roofline, MatmulsWithFewOutputTilesSplitTheirSumAndConvolutionsDoNot) {
  GraphBuilder b;
  auto a = b.input("a", {64, 4096});
  auto w = b.input("w", {4096, 64});
  auto y = b.matmul(a, w);
  auto x = b.input("x", {1, 4096, 8, 8});
  auto z = b.conv2d(x, 64, {1, 1});
  auto g = b.graph();
  DeviceSpec const& d = devices::H100::spec;
  auto mm = cost_of(RooflineCost(d), g, y);
  auto conv = cost_of(RooflineCost(d), g, z);
  // The same GEMM, 64 x 64 x 4096, one tile: cuDNN's convolution runs it on one tile slot of
  // 264; cuBLAS splits K into many tiles and pays for reducing their partial outputs.
  // Alone on one tile slot, the conv still draws the 64 KB its tile's pipeline keeps in flight
  // per 0.5 us of DRAM latency (Little's law).
  double bytes = 4.0 * (4096 * 64 + 64 * 4096 + 64 * 64);
  double share = 65536.0 / (d.bytes_per_us() * 0.5);
  double unsplit = d.launch_us + std::max(2.0 * 64 * 64 * 4096 / (d.matrix_f32_per_us() / 264), bytes / (d.bytes_per_us() * share));
  EXPECT_NEAR(conv.fill, 1.0 / 264, 1e-12);
  EXPECT_NEAR(conv.us, unsplit, 1e-9);
  EXPECT_GT(mm.fill, 8.0 / 264);
  EXPECT_LT(mm.us, unsplit / 8);
}

TEST(Roofline, ThreeByThreeStrideOneConvolutionsRunWinogradWhereCudaCoresComputeThem) {
  GraphBuilder b;
  auto x = b.input("x", {1, 128, 56, 56});
  auto y = b.conv2d(x, 128, {3, 3});
  auto s2 = b.conv2d(x, 128, {3, 3}, {.stride = {2, 2}, .pad = std::array<std::int64_t, 4>{1, 1, 1, 1}});
  auto g = b.graph();
  DeviceSpec const& v100 = devices::V100::spec;
  // 28 x 28 = 784 output tiles of 2x2 (25 blocks of 32) x 128 channels (4 blocks of 32): 100
  // blocks of the fused kernel, each 16 points x 32 x 32 x 128 multiply-adds, on 100 of the
  // 160 slots (kernel_blocks_test.cpp has the batch-1 cases).
  auto c = cost_of(RooflineCost(v100), g, y);
  EXPECT_DOUBLE_EQ(c.fill, 100.0 / 160);
  EXPECT_NEAR(c.us, v100.launch_us + 2.0 * 100 * 16 * 32 * 32 * 128 / (v100.fp32_per_us() * 100 / 160), 1e-9);
  // Stride 2 has no Winograd kernel: the direct GEMM, 28*28 rows x 128 x 1152, 26 tiles.
  auto direct = cost_of(RooflineCost(v100), g, s2);
  EXPECT_NEAR(direct.us, v100.launch_us + 2.0 * 26 * 64 * 64 * 1152 / (v100.fp32_per_us() * 26 / 160), 1e-9);
  // With TF32 tensor cores the direct GEMM (56*56 rows, 98 tiles) beats Winograd on CUDA cores.
  DeviceSpec const& h100 = devices::H100::spec;
  auto tensor = cost_of(RooflineCost(h100), g, y);
  EXPECT_NEAR(tensor.us, h100.launch_us + 2.0 * 98 * 64 * 64 * 1152 / (h100.matrix_f32_per_us() * 98 / 264), 1e-9);
}

TEST(Roofline, AKernelDrawsTheBandwidthItsThreadsKeepInFlight) {
  GraphBuilder b;
  auto x = b.input("x", {1, 64, 17, 17});
  auto r = b.relu(x);
  auto big = b.relu(b.input("big", {64, 256, 56, 56}));
  auto g = b.graph();
  DeviceSpec const& d = devices::H100::spec;
  auto small = cost_of(RooflineCost(d), g, r);
  // 18,496 threads of 270,336 (6.8% of the device) keep 296 KB in flight: by Little's law
  // 592 KB/us, 20% of the 3 TB/s, three times its fill's share.
  double fill = 64.0 * 17 * 17 / (2048.0 * 132);
  double share = fill * 2048 * 132 * 16 / (d.bytes_per_us() * 0.5);
  EXPECT_NEAR(small.fill, fill, 1e-12);
  EXPECT_NEAR(small.us, d.launch_us + 2 * 4.0 * 64 * 17 * 17 / (d.bytes_per_us() * share), 1e-9);
  EXPECT_NEAR(small.bandwidth, share, 1e-12);  // all of its work is moving bytes
  // A kernel that fills the device draws all of the bandwidth.
  EXPECT_DOUBLE_EQ(cost_of(RooflineCost(d), g, big).bandwidth, 1.0);
  // Without a DRAM latency (the CPU descriptions) the share is the fill.
  DeviceSpec no_latency = d;
  no_latency.dram_latency_ns = 0;
  EXPECT_NEAR(RooflineCost::compute(no_latency, g[r.node].op, input_descs(g, r.node), g[r.node].outputs).bandwidth, fill, 1e-12);
}

TEST(Roofline, SmallerImagesNeverCostMoreThanTileQuantisationExplains) {
  // Per-kernel costs summed over SqueezeNet: a smaller input never costs more than a larger
  // one by more than a 64-row tile's rounding can (1%). A share of bandwidth proportional to
  // fill made 64 x 64 pixels cost more than 224 x 224.
  auto total = [](std::int64_t side) {
    models::ModelOptions o;
    o.resolution = side;
    Graph<> g = models::build("squeezenet1_1", o);
    RooflineCost m(devices::H100::spec);
    double us = 0;
    auto kernel = kernel_mask(g);
    for (NodeId id : g.node_ids())
      if (kernel[id]) us += m.estimate(g[id].op, input_descs(g, id), g[id].outputs).us;
    return us;
  };
  double previous = 0;
  for (std::int64_t side : {64, 96, 128, 160, 192, 224}) {
    double us = total(side);
    EXPECT_GT(us, previous * 0.99) << side;
    previous = std::max(previous, us);
  }
  EXPECT_GT(total(224), total(64));
}

TEST(Roofline, DepthwiseConvolutionsRunOnCudaCores) {
  GraphBuilder b;
  auto x = b.input("x", {1, 96, 28, 28});
  auto y = b.conv2d(x, 96, {3, 3}, {.groups = 96});
  auto g = b.graph();
  auto c = cost_of(RooflineCost{}, g, y);
  EXPECT_NEAR(c.fill, 96.0 * 28 * 28 / (2048.0 * 132), 1e-12);  // one thread per output
}

TEST(Roofline, LargeDepthwiseConvolutionsComputeAtTheMeasuredDepthwiseRate) {
  // NASNet-A Large's 7x7 separable convolution at batch 32: the device is full and the
  // kernel reads and writes 76 MB, which take 25 us; its 0.93 GFLOP take 308 us at 3.02 TFLOP/s.
  GraphBuilder b;
  auto x = b.input("x", {32, 168, 42, 42});
  auto y = b.conv2d(x, 168, {7, 7}, {.groups = 168});
  auto const& g = b.graph();
  auto const& d = devices::H100::spec;
  auto c = cost_of(RooflineCost{d}, g, y);
  double flops = 2.0 * 32 * 168 * 42 * 42 * 49;
  EXPECT_DOUBLE_EQ(c.fill, 1.0);
  EXPECT_NEAR(c.us, d.launch_us + flops / d.depthwise_per_us(), 1e-9);
  // A 1x1 convolution of the same tensors, with 3.4 times the flops, is a GEMM on tensor
  // cores: bandwidth-bound at about 25 us.
  auto dense = b.conv2d(b.input("z", {32, 168, 42, 42}), 168, {1, 1});
  EXPECT_GT(c.us, 5 * cost_of(RooflineCost{d}, b.graph(), dense).us);
}

TEST(Roofline, EachSignatureIsComputedOnceAndCopiesShareTheMemo) {
  GraphBuilder b;
  auto x = b.input("x", {1, 32, 28, 28});
  auto r1 = b.relu(x);
  auto r2 = b.relu(r1);  // same signature as r1
  auto s = b.sigmoid(r2);
  auto g = b.graph();
  RooflineCost m;
  RooflineCost copy = m;
  EXPECT_EQ(cost_of(m, g, r1), cost_of(copy, g, r2));
  cost_of(copy, g, s);
  EXPECT_EQ(m.cached_signatures(), 2u);
  EXPECT_EQ(cost_of(m, g, s), RooflineCost::compute(m.device(), g[s.node].op, input_descs(g, s.node), g[s.node].outputs));
}

TEST(InferenceKernels, WeightsAndWeightOnlyTransformsAreFoldedViewsRunNoKernel) {
  GraphBuilder b;
  auto x = b.input("x", {1, 8, 10, 10});
  auto w = b.weight("w", {8, 8, 1, 1});
  auto big = b.add(Enlarge{{3, 3}}, {w});  // weight-only: folded at load time
  auto y = b.add(Conv2D{.pad = {1, 1, 1, 1}}, {x, big});
  auto flat = b.reshape(y, {1, 800});
  auto z = b.relu(flat);
  auto pieces = b.split(y, 1, {4, 4});  // contiguous at batch 1: views
  auto g = std::move(b).build({z, pieces[0], pieces[1]});
  auto constant = weight_only_nodes(g);
  auto kernel = kernel_mask(g);
  EXPECT_TRUE(constant[w.node] && constant[big.node]);
  EXPECT_FALSE(constant[y.node] || constant[x.node]);
  EXPECT_FALSE(kernel[x.node] || kernel[w.node] || kernel[big.node] || kernel[flat.node] || kernel[pieces[0].node]);
  EXPECT_TRUE(kernel[y.node] && kernel[z.node]);
}

TEST(InferenceKernels, SplitsOfBatchedTensorsCopy) {
  GraphBuilder b;
  auto x = b.input("x", {2, 8, 4, 4});
  auto pieces = b.split(x, 1, {4, 4});
  auto g = std::move(b).build({pieces[0], pieces[1]});
  EXPECT_TRUE(kernel_mask(g)[pieces[0].node]);
  EXPECT_GT(cost_of(RooflineCost{}, g, pieces[0]).us, 0);
}

}  // namespace
}  // namespace autograph
