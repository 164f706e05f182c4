// fit_roofline: the free roofline parameters recovered from kernel times a known device
// generates, and profiles it cannot fit rejected by name.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "autograph/cost/roofline_fit.hpp"

namespace autograph {
namespace {

// A 2-core CPU-like device: 0.2 TFLOP/s peak for both rates, 20 GB/s, nothing fitted.
constexpr DeviceSpec start_device() {
  DeviceSpec d{"test CPU", "test-cpu"};
  d.sm_count = 2;
  d.max_threads_per_sm = 1;
  d.fp32_tflops = d.tf32_tflops = 0.2;
  d.bandwidth_gbs = 20;
  d.compute_efficiency = d.bandwidth_efficiency = 1;
  return d;
}

KernelTime kernel(AnyOp op, std::vector<TensorDesc> in) {
  auto out = op.infer(in);
  std::string sig(op.name());
  return {std::move(op), std::move(in), std::move(out), 0, 1, sig};
}

Conv2D conv(std::int64_t k, std::int64_t groups = 1) { return Conv2D{.pad = Conv2D::same_pad(k, k), .groups = groups}; }

/// Kernels under every roof: GEMM convolutions and a matmul (matrix rate), 7x7 depthwise
/// convolutions (the vector rate), large elementwise ops (bandwidth) and tiny ones (launch).
std::vector<KernelTime> workload() {
  std::vector<KernelTime> k;
  for (std::int64_t c : {32, 64, 128})
    k.push_back(kernel(conv(3), {{Shape{1, c, 56, 56}}, {Shape{c, c, 3, 3}}}));
  k.push_back(kernel(conv(1), {{Shape{1, 256, 14, 14}}, {Shape{512, 256, 1, 1}}}));
  k.push_back(kernel(MatMul{}, {{Shape{128, 768}}, {Shape{768, 768}}}));
  for (std::int64_t c : {32, 96, 160})
    k.push_back(kernel(conv(7, c), {{Shape{1, c, 56, 56}}, {Shape{c, 1, 7, 7}}}));
  for (std::int64_t n : {56, 112})
    k.push_back(kernel(Relu{}, {{Shape{1, 64, n, n}}}));
  k.push_back(kernel(Add{}, {{Shape{1, 128, 56, 56}}, {Shape{1, 128, 56, 56}}}));
  for (std::int64_t n : {2, 4, 8})
    k.push_back(kernel(Relu{}, {{Shape{1, 4, n, n}}}));
  return k;
}

TEST(RooflineFit, RecoversTheParametersThatGeneratedTheTimes) {
  DeviceSpec truth = start_device();
  truth.compute_efficiency = 0.62;
  truth.fp32_tflops = 0.2 * 0.15;  // non-GEMM kernels at 15% of the matrix peak
  truth.bandwidth_efficiency = 0.45;
  truth.launch_us = 4;
  auto kernels = workload();
  for (auto& k : kernels) k.us = roofline_us(truth, k);

  RooflineFit fit = fit_roofline(start_device(), kernels);
  EXPECT_EQ(fit.fitted, (std::vector<std::string>{"compute_efficiency", "fp32_tflops", "bandwidth_efficiency", "launch_us"}));
  EXPECT_NEAR(fit.device.compute_efficiency, 0.62, 0.62 * 1e-3);
  EXPECT_NEAR(fit.device.fp32_tflops, 0.03, 0.03 * 1e-3);
  EXPECT_NEAR(fit.device.bandwidth_efficiency, 0.45, 0.45 * 1e-3);
  EXPECT_NEAR(fit.device.launch_us, 4, 4e-3);
  EXPECT_LT(fit.rms_log_error, 1e-4);
  EXPECT_GT(fit.start_rms_log_error, 0.5);  // the unfitted start is far off: the fit did the work
  EXPECT_EQ(fit.kernels, kernels.size());
  EXPECT_GT(fit.compute_bound, 0u);
  EXPECT_GT(fit.bandwidth_bound, 0u);
  EXPECT_EQ(fit.device.name, "test CPU");  // the start's name: what a cost table of this device is keyed by
  EXPECT_DOUBLE_EQ(fit.device.tf32_tflops, 0.2);  // peaks are not free
  EXPECT_DOUBLE_EQ(fit.device.bandwidth_gbs, 20);
}

TEST(RooflineFit, HeldParametersKeepTheStartValues) {
  DeviceSpec truth = start_device();
  truth.bandwidth_efficiency = 0.5;
  truth.launch_us = 2;
  auto kernels = workload();
  for (auto& k : kernels) k.us = roofline_us(truth, k);
  RooflineFit fit = fit_roofline(start_device(), kernels, {.compute = false, .vector_rate = false});
  EXPECT_EQ(fit.fitted, (std::vector<std::string>{"bandwidth_efficiency", "launch_us"}));
  EXPECT_DOUBLE_EQ(fit.device.compute_efficiency, 1);
  EXPECT_NEAR(fit.device.bandwidth_efficiency, 0.5, 1e-3);
  EXPECT_NEAR(fit.device.launch_us, 2, 2e-3);
}

TEST(RooflineFit, ZeroTimesAreSkippedAndCounted) {
  DeviceSpec truth = start_device();
  truth.launch_us = 3;
  auto kernels = workload();
  for (auto& k : kernels) k.us = roofline_us(truth, k);
  kernels.back().us = 0;  // the profiler's marginal time can be 0 within noise: no log time
  RooflineFit fit = fit_roofline(start_device(), kernels);
  EXPECT_EQ(fit.skipped, 1u);
  EXPECT_EQ(fit.kernels, kernels.size() - 1);
}

void expect_error_naming(std::span<KernelTime const> kernels, std::string const& part) {
  try {
    fit_roofline(start_device(), kernels);
    FAIL() << "expected an error naming '" << part << "'";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(RooflineFit, RejectsTooFewKernelsAndTimesThatAreNotFinite) {
  auto kernels = workload();
  for (auto& k : kernels) k.us = roofline_us(start_device(), k);
  // Four free parameters need five kernel times.
  expect_error_naming(std::span<KernelTime const>(kernels).first(4), "at least 5 are needed");
  auto zeros = kernels;
  for (std::size_t i = 1; i < zeros.size(); ++i) zeros[i].us = 0;
  expect_error_naming(zeros, "1 kernel times above 0 us");

  auto bad = kernels;
  bad[3].us = std::numeric_limits<double>::quiet_NaN();
  bad[3].signature = "Conv2D{odd}(f32[1])";
  expect_error_naming(bad, "Conv2D{odd}(f32[1])");
  bad[3].us = std::numeric_limits<double>::infinity();
  expect_error_naming(bad, "must be finite");
  bad[3].us = -1;
  expect_error_naming(bad, "must be finite and >= 0");
  bad[3].us = 10;
  bad[3].weight = 0;
  expect_error_naming(bad, "weights must be finite and > 0");
  EXPECT_THROW(fit_roofline(start_device(), kernels, {.compute = false, .vector_rate = false, .bandwidth = false, .launch = false}), Error);
}

}  // namespace
}  // namespace autograph
