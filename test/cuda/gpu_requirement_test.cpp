// The GPU tests' skip and its AUTOGRAPH_REQUIRE_GPU=1 override (cuda_testing.hpp), which no
// GPU is needed to check; require_gpu_check.sh checks the macro itself on the built tests.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cuda_testing.hpp"

namespace autograph::cuda::testing {
namespace {

TEST(GpuRequirement, WithoutAGpuATestSkipsSayingWhy) {
  auto v = gpu_verdict(std::string("no usable GPU: cudaGetDeviceCount failed: cudaErrorInsufficientDriver"), false);
  EXPECT_EQ(v.action, GpuVerdict::skip);
  EXPECT_NE(v.why.find("cudaErrorInsufficientDriver"), std::string::npos) << v.why;
  EXPECT_NE(v.why.find("AUTOGRAPH_REQUIRE_GPU=1"), std::string::npos) << v.why;
}

TEST(GpuRequirement, WithoutAGpuATestFailsWhenOneIsRequired) {
  auto v = gpu_verdict(std::string("no usable GPU: cudaGetDeviceCount found no CUDA device"), true);
  EXPECT_EQ(v.action, GpuVerdict::fail);
  EXPECT_EQ(v.why, "AUTOGRAPH_REQUIRE_GPU=1, but no usable GPU: cudaGetDeviceCount found no CUDA device");
}

TEST(GpuRequirement, WithAGpuATestRuns) {
  EXPECT_EQ(gpu_verdict(std::nullopt, false).action, GpuVerdict::run);
  EXPECT_EQ(gpu_verdict(std::nullopt, true).action, GpuVerdict::run);
}

TEST(GpuRequirement, OnlyTheValueOneRequiresAGpu) {
  char const* before = std::getenv("AUTOGRAPH_REQUIRE_GPU");
  std::string saved = before ? before : "";
  setenv("AUTOGRAPH_REQUIRE_GPU", "1", 1);
  EXPECT_TRUE(gpu_required());
  setenv("AUTOGRAPH_REQUIRE_GPU", "0", 1);
  EXPECT_FALSE(gpu_required());
  unsetenv("AUTOGRAPH_REQUIRE_GPU");
  EXPECT_FALSE(gpu_required());
  if (before) setenv("AUTOGRAPH_REQUIRE_GPU", saved.c_str(), 1);
}

}  // namespace
}  // namespace autograph::cuda::testing
