#pragma once
// What the CUDA runtime tests share: the skip without a GPU, one runtime per test program,
// and comparison with the reference executor that reports the relative error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "autograph/cuda/runtime.hpp"
#include "autograph/runtime/reference_executor.hpp"
#include "autograph/schedule/sequential.hpp"

/// Skips the test, saying why, when no GPU can be used (no driver, too old a driver, no device).
#define AUTOGRAPH_REQUIRE_GPU()                                                   \
  do {                                                                            \
    if (auto autograph_no_gpu_ = ::autograph::cuda::gpu_unavailable()) GTEST_SKIP() << *autograph_no_gpu_; \
  } while (0)

namespace autograph::cuda::testing {

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
