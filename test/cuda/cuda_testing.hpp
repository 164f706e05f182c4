#pragma once
// What the CUDA runtime tests share: the skip without a GPU, one runtime per test program,
// comparison with the reference executor that reports the relative error, and the FP32
// lowering and tolerances the op tests compare under (with the names they use unqualified).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autograph/cuda/runtime.hpp"
#include "autograph/runtime/reference_executor.hpp"
#include "autograph/schedule/sequential.hpp"
#include "test_graphs.hpp"

/// Skips the test, saying why, when no GPU can be used (no driver, too old a driver, no
/// device); with AUTOGRAPH_REQUIRE_GPU=1 in the environment the test fails instead, so that a
/// GPU machine whose driver cannot run CUDA 13 does not pass with no GPU coverage.
#define AUTOGRAPH_REQUIRE_GPU()                                                                                          \
  do {                                                                                                                   \
    auto autograph_gpu_ = ::autograph::cuda::testing::gpu_verdict(::autograph::cuda::gpu_unavailable(),                  \
                                                                  ::autograph::cuda::testing::gpu_required());           \
    if (autograph_gpu_.action == ::autograph::cuda::testing::GpuVerdict::fail) FAIL() << autograph_gpu_.why;             \
    if (autograph_gpu_.action == ::autograph::cuda::testing::GpuVerdict::skip) GTEST_SKIP() << autograph_gpu_.why;       \
  } while (0)

namespace autograph::cuda::testing {

/// Whether the environment asks for GPU tests to run (AUTOGRAPH_REQUIRE_GPU=1).
inline bool gpu_required() {
  char const* v = std::getenv("AUTOGRAPH_REQUIRE_GPU");
  return v && std::string_view(v) == "1";
}

/// What a GPU test does, given why no GPU can be used (nullopt: one can) and whether one is
/// required.
struct GpuVerdict {
  enum Action { run, skip, fail } action = run;
  std::string why;
};
inline GpuVerdict gpu_verdict(std::optional<std::string> const& unavailable, bool required) {
  if (!unavailable) return {};
  if (required) return {GpuVerdict::fail, "AUTOGRAPH_REQUIRE_GPU=1, but " + *unavailable};
  return {GpuVerdict::skip, *unavailable + " (set AUTOGRAPH_REQUIRE_GPU=1 to fail instead of skipping)"};
}

/// Says once per test program which GPU the tests run on, or why they skip (or fail).
class GpuReport : public ::testing::Environment {
 public:
  void SetUp() override {
    if (auto why = gpu_unavailable())
      std::printf("[gpu] %s%s\n", why->c_str(), gpu_required() ? "; AUTOGRAPH_REQUIRE_GPU=1: the GPU tests fail" : "; the GPU tests skip");
    else
      std::printf("[gpu] %s\n", device_info(0).describe().c_str());
    std::fflush(stdout);
  }
};
inline ::testing::Environment* const gpu_report = ::testing::AddGlobalTestEnvironment(new GpuReport);

/// One runtime for the whole test program (opening cuDNN and cuBLASLt takes a while).
/// @pre a GPU is available (AUTOGRAPH_REQUIRE_GPU first).
inline CudaGraphRuntime& gpu() {
  static CudaGraphRuntime rt;
  return rt;
}

/// ||got - want|| / ||want|| (L2), with NaN and infinity required at the same places.
struct Difference {
  double relative_l2 = 0;
  double max_abs = 0;
  std::size_t mismatched_non_finite = 0;
};

inline Difference difference(Tensor const& got, Tensor const& want) {
  Difference d;
  double num = 0, den = 0;
  auto g = got.data(), w = want.data();
  for (std::size_t i = 0; i < w.size() && i < g.size(); ++i) {
    bool gf = std::isfinite(g[i]), wf = std::isfinite(w[i]);
    if (!gf || !wf) {
      bool same = (std::isnan(g[i]) && std::isnan(w[i])) || g[i] == w[i];
      d.mismatched_non_finite += same ? 0 : 1;
      continue;
    }
    double e = static_cast<double>(g[i]) - w[i];
    num += e * e;
    den += static_cast<double>(w[i]) * w[i];
    d.max_abs = std::max(d.max_abs, std::fabs(e));
  }
  d.relative_l2 = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return d;
}

/// `got` has want's shape and is within `tolerance` relative L2 error of it; prints the error.
inline ::testing::AssertionResult close(Tensor const& got, Tensor const& want, double tolerance, std::string const& what = "output") {
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure() << what << ": shape " << got.shape().to_string() << ", expected " << want.shape().to_string();
  Difference d = difference(got, want);
  std::printf("[ rel err  ] %-40s %.3g (max abs %.3g)\n", what.c_str(), d.relative_l2, d.max_abs);
  if (d.mismatched_non_finite > 0)
    return ::testing::AssertionFailure() << what << ": " << d.mismatched_non_finite << " non-finite values differ from the reference";
  if (!(d.relative_l2 <= tolerance))
    return ::testing::AssertionFailure() << what << ": relative L2 error " << d.relative_l2 << " > " << tolerance << " (max abs "
                                         << d.max_abs << ")";
  return ::testing::AssertionSuccess();
}

/// FP32 without TF32: the lowering the op tests compare with the reference executor.
inline constexpr LowerOptions fp32{.allow_tf32 = false};
/// Relative L2 tolerances of FP32 results against the reference executor's.
inline constexpr double fp32_math = 1e-5;  // reductions and transcendental functions: other summation orders, other ulps
inline constexpr double fp32_gemm = 1e-4;  // cuDNN/cuBLASLt FP32 algorithms (Winograd, FFT, split-K)

/// Uniform random inputs for every Input node of g, in g.inputs() order.
inline std::vector<Tensor> random_inputs(Graph<> const& g, std::uint64_t seed = 1, float lo = -1.f, float hi = 1.f) {
  std::vector<Tensor> in;
  for (NodeId id : g.inputs()) in.push_back(Tensor::random(g[id].outputs[0].shape, seed++, lo, hi));
  return in;
}

/// Runs g under schedule s on the GPU and on the reference executor; expects every output close.
inline void expect_matches_reference(Graph<> const& g, Schedule const& s, std::vector<Tensor> const& inputs, double tolerance,
                                     LowerOptions lowering = {.allow_tf32 = false}, ExecOptions exec = {.check_arena = true},
                                     std::string const& what = "output") {
  auto want = ReferenceExecutor<>().run(g, std::span<Tensor const>(inputs));
  auto exe = gpu().compile(g, s, exec, lowering);
  auto got = exe.run(std::span<Tensor const>(inputs));
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(close(got[i], want[i], tolerance, what + " " + std::to_string(i)));
}

/// The same, with the single-stream schedule.
inline void expect_matches_reference(Graph<> const& g, std::vector<Tensor> const& inputs, double tolerance,
                                     LowerOptions lowering = {.allow_tf32 = false}, std::string const& what = "output") {
  expect_matches_reference(g, schedule::sequential(KernelDag(g)), inputs, tolerance, lowering, {.check_arena = true}, what);
}

}  // namespace autograph::cuda::testing

namespace autograph::cuda {
// The op tests' vocabulary (ops_test.cpp, fused_ops_test.cpp, fused_vit_test.cpp), named once.
using testing::expect_matches_reference;
using testing::fp32;
using testing::fp32_gemm;
using testing::fp32_math;
using testing::Net;
using testing::random_inputs;
}  // namespace autograph::cuda
