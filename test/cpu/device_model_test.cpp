// The CPU device model calibrated from a profile: the profile's kernels found in the graphs,
// this machine's roofline fitted to their times, and profiles of other graphs rejected.
#include <gtest/gtest.h>

#include "autograph/cpu/device_model.hpp"
#include "autograph/graph/builder.hpp"

namespace autograph::cpu {
namespace {

/// Kernels under every roof: GEMM convolutions, 7x7 depthwise ones, large and tiny elementwise ops.
Graph<> mixed_graph() {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 64, 56, 56});
  Value y = b.relu(b.conv2d(x, 64, {3, 3}));
  Value z = b.relu(b.conv2d(y, 64, {3, 3}));  // conv and relu again: two occurrences each
  Value d = b.conv2d(b.conv2d(z, 32, {1, 1}), 32, {7, 7}, {.groups = 32});
  Value e = b.conv2d(b.conv2d(z, 160, {1, 1}), 160, {7, 7}, {.groups = 160});
  Value t = b.relu(b.input("t", {1, 4, 2, 2}));
  Value u = b.relu(b.input("u", {1, 4, 8, 8}));
  return std::move(b).build({b.add(y, z), d, e, t, u});
}

/// A profile of `g` whose times a known device generated.
ProfileResult synthetic_profile(Graph<> const& g, DeviceSpec const& truth) {
  ProfileResult p;
  p.cpu = cpu_model_name();
  p.cores = truth.sm_count;
  auto kernel = kernel_mask(g);
  std::map<std::string, std::size_t> seen;
  for (NodeId id : g.node_ids()) {
    if (!kernel[id]) continue;
    auto in = input_descs(g, id);
    std::string sig = op_signature(g[id].op, in);
    if (auto [it, fresh] = seen.emplace(sig, p.entries.size()); !fresh) {
      ++p.entries[it->second].occurrences;
      continue;
    }
    p.entries.push_back({sig, RooflineCost::compute(truth, g[id].op, in, g[id].outputs).us, 1});
  }
  return p;
}

TEST(CpuDeviceModel, TheKernelTimesComeFromTheGraphsWeightedByOccurrences) {
  Graph<> g = mixed_graph();
  ProfileResult p = synthetic_profile(g, host_device_spec(2));
  auto times = profile_kernel_times(p, std::span<Graph<> const>(&g, 1));
  ASSERT_EQ(times.size(), p.entries.size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    EXPECT_EQ(times[i].signature, p.entries[i].signature);
    EXPECT_EQ(op_signature(times[i].op, times[i].in), p.entries[i].signature);
    EXPECT_EQ(times[i].weight, static_cast<double>(p.entries[i].occurrences));
    EXPECT_EQ(times[i].us, p.entries[i].us);
  }
  EXPECT_EQ(std::ranges::count(times, 2.0, &KernelTime::weight), 2);  // the first conv and relu
}

/// This machine as host_device_spec(2) describes it, with fixed peaks in place of the ones it
/// measures: beside other work, or under ThreadSanitizer (whose memcpy is checked byte by
/// byte), the measured copy bandwidth fell so low that every kernel of mixed_graph() was
/// memory-bound, and no fit can recover a compute rate then (a sharded TSan run failed so).
DeviceSpec fixed_host() {
  DeviceSpec d = host_device_spec(2);
  d.fp32_tflops = d.tf32_tflops = 0.2;  // 2 cores x 3 GHz x 32 flops a cycle (AVX2 FMA)
  d.bandwidth_gbs = 20;
  return d;
}

TEST(CpuDeviceModel, CalibrationRecoversTheDeviceThatGeneratedTheProfile) {
  Graph<> g = mixed_graph();
  DeviceSpec truth = fixed_host();
  truth.compute_efficiency = 0.7;
  truth.fp32_tflops *= 0.1;
  truth.bandwidth_efficiency = 0.6;
  truth.launch_us = 6;
  RooflineFit fit = calibrate_device(fixed_host(), synthetic_profile(g, truth), std::span<Graph<> const>(&g, 1));
  EXPECT_NEAR(fit.device.compute_efficiency, 0.7, 1e-3);
  EXPECT_NEAR(fit.device.fp32_tflops / truth.fp32_tflops, 1, 1e-3);
  EXPECT_NEAR(fit.device.bandwidth_efficiency, 0.6, 1e-3);
  EXPECT_NEAR(fit.device.launch_us, 6, 6e-3);
}

TEST(CpuDeviceModel, TheHostsCalibrationIsNamedAndSizedLikeItsProfile) {
  Graph<> g = mixed_graph();
  RooflineFit fit = calibrate_host_device(synthetic_profile(g, host_device_spec(2)), std::span<Graph<> const>(&g, 1));
  EXPECT_EQ(fit.device.name, cpu_model_name());  // what the profile's cost table is keyed by
  EXPECT_EQ(fit.device.sm_count, 2);
}

TEST(CpuDeviceModel, RejectsAProfileOfOtherGraphsOrCores) {
  Graph<> g = mixed_graph();
  ProfileResult p = synthetic_profile(g, host_device_spec(2));
  p.entries.push_back({"Relu{}(f32[1,3,5,7])", 2.0, 1});
  try {
    calibrate_host_device(p, std::span<Graph<> const>(&g, 1));
    FAIL() << "expected an error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("'Relu{}(f32[1,3,5,7])' is in none of the 1 graphs"), std::string::npos) << e.what();
  }
  p.entries.pop_back();
  p.cores = 0;
  EXPECT_THROW(calibrate_host_device(p, std::span<Graph<> const>(&g, 1)), Error);
}

}  // namespace
}  // namespace autograph::cpu
