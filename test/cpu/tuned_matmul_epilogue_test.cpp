// The tunable matmul with bias and activation computes the naive product's output (normwise
// relative error <= 1e-5) in every sampled configuration of both engines, rejects invalid
// configurations with a reason and bad problems naming them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "attention_reference.hpp"
#include "autograph/core/error.hpp"
#include "autograph/cpu/tuned/matmul_epilogue.hpp"

namespace autograph::cpu::testing {
namespace {

using tuned::MatmulEngine;
using tuned::MatmulEpilogue;
using tuned::MatmulEpilogueConfig;
using tuned::MatmulEpiloguePlan;
using tuned::MatmulEpilogueProblem;

static_assert(tuning::TunableKernel<MatmulEpilogue>);

std::vector<float> naive_matmul(MatmulEpilogueProblem const& p, std::vector<float> const& a, std::vector<float> const& b,
                                std::vector<float> const& bias) {
  std::vector<float> c(static_cast<std::size_t>(p.m * p.n));
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      double acc = p.has_bias ? bias[j] : 0.0;
      for (std::int64_t x = 0; x < p.k; ++x) acc += double(a[i * p.k + x]) * b[x * p.n + j];
      c[i * p.n + j] = apply(p.act, static_cast<float>(acc));
    }
  return c;
}

/// Every `stride`-th point of the space that is valid matches; returns how many ran.
std::size_t expect_space_matches(MatmulEpilogueProblem const& p, std::size_t stride) {
  auto a = random_floats(p.m * p.k, 1), b = random_floats(p.k * p.n, 2), bias = random_floats(p.n, 3);
  auto want = naive_matmul(p, a, b, bias);
  auto knobs = MatmulEpilogue::knobs(p);
  std::size_t total = 1, ran = 0;
  for (auto const& k : knobs) total *= k.values.size();
  for (std::size_t n = 0; n < total; n += stride) {
    tuning::Choice ch;
    for (std::size_t i = 0, rest = n; i < knobs.size(); rest /= knobs[i].values.size(), ++i) ch.push_back(rest % knobs[i].values.size());
    MatmulEpilogueConfig c = MatmulEpilogue::config(p, ch);
    if (!MatmulEpilogue::is_valid(p, c)) continue;
    MatmulEpiloguePlan plan(p, c, b.data());
    std::vector<float> got(want.size(), std::numeric_limits<float>::quiet_NaN());
    plan.run(a.data(), b.data(), p.has_bias ? bias.data() : nullptr, got.data());
    EXPECT_LE(normwise_error(got, want), 1e-5) << p.to_string() << " " << MatmulEpilogue::to_string(c);
    ++ran;
  }
  // Every oneDNN point (the sample above may step over them: they are few).
  for (std::int64_t threads : knobs[6].values)
    for (bool blocked : {false, true}) {
      MatmulEpilogueConfig c = MatmulEpilogue::default_config(p);
      c.threads = threads, c.blocked_weights = blocked;
      MatmulEpiloguePlan plan(p, c, b.data());
      std::vector<float> got(want.size(), std::numeric_limits<float>::quiet_NaN());
      plan.run(a.data(), b.data(), p.has_bias ? bias.data() : nullptr, got.data());
      EXPECT_LE(normwise_error(got, want), 1e-5) << p.to_string() << " " << MatmulEpilogue::to_string(c);
    }
  return ran;
}

TEST(TunedMatmulEpilogue, OddShapeWithBiasAndReluMatchesReference) {
  EXPECT_GE(expect_space_matches({.m = 37, .n = 77, .k = 33, .has_bias = true, .act = Activation::relu}, 5), 100u);
}

TEST(TunedMatmulEpilogue, SingleRowWithTanhMatchesReference) {
  EXPECT_GE(expect_space_matches({.m = 1, .n = 130, .k = 65, .has_bias = false, .act = Activation::tanh}, 7), 60u);
}

TEST(TunedMatmulEpilogue, GeluIsTheExactErfFormOnEveryEngine) {
  EXPECT_GE(expect_space_matches({.m = 9, .n = 40, .k = 17, .has_bias = true, .act = Activation::gelu}, 11), 30u);
}

TEST(TunedMatmulEpilogue, VitMlpShapeWithSigmoidMatchesReferenceOnASample) {
  // ViT's first MLP layer at batch 1 (197 tokens, 768 -> 3072) split four ways along n to stay quick.
  // Every 97th point: 8 valid on an AVX2 CPU, more where AVX-512 adds 16-lane vectors to the space.
  EXPECT_GE(expect_space_matches({.m = 197, .n = 768, .k = 768, .has_bias = true, .act = Activation::sigmoid}, 97), 8u);
}

TEST(TunedMatmulEpilogue, InvalidConfigsAndBadProblemsAreRejected) {
  MatmulEpilogueProblem const p{.m = 8, .n = 8, .k = 8, .has_bias = false, .act = Activation::none};
  MatmulEpilogueConfig c{.engine = MatmulEngine::own, .mc = 8, .nc = 12, .kc = 8, .vector_width = 8, .unroll = 4, .threads = 1};
  EXPECT_NE(MatmulEpilogue::why_invalid(p, c).find("nc 12 is not a multiple of vector_width 8"), std::string::npos);
  c.nc = 16, c.unroll = 8, c.mc = 4;
  EXPECT_NE(MatmulEpilogue::why_invalid(p, c).find("unroll 8 > mc 4"), std::string::npos);
  c.mc = 8, c.blocked_weights = true;
  EXPECT_NE(MatmulEpilogue::why_invalid(p, c).find("blocked_weights"), std::string::npos);
  MatmulEpilogueConfig d = MatmulEpilogue::default_config(p);
  EXPECT_TRUE(MatmulEpilogue::is_valid(p, d)) << MatmulEpilogue::why_invalid(p, d);
  d.mc = 128;
  EXPECT_NE(MatmulEpilogue::why_invalid(p, d).find("onednn reads no tile knob"), std::string::npos);
  d.mc = MatmulEpilogue::default_config(p).mc;
  d.threads = 1 << 20;
  EXPECT_NE(MatmulEpilogue::why_invalid(p, d).find("threads 1048576"), std::string::npos);
  EXPECT_THROW(MatmulEpiloguePlan(p, c), Error);
  try {
    MatmulEpiloguePlan({.m = 0, .n = 8, .k = 8}, MatmulEpilogue::default_config(p));
    ADD_FAILURE() << "no error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("matmul_epilogue m=0 n=8 k=8"), std::string::npos) << e.what();
  }
  MatmulEpilogueConfig blocked = MatmulEpilogue::default_config(p);
  blocked.blocked_weights = true;
  EXPECT_THROW(MatmulEpiloguePlan(p, blocked, nullptr), Error);  // no B to reorder
  std::vector<float> x(64);
  MatmulEpiloguePlan plan(p, MatmulEpilogue::default_config(p));
  EXPECT_THROW(plan.run(x.data(), x.data(), x.data(), x.data()), Error);  // a bias the problem does not have
  EXPECT_EQ(MatmulEpilogue::features(p, c).size(), 16u);
  EXPECT_EQ(MatmulEpilogue::signature(p), "matmul_epilogue m=8 n=8 k=8 no-bias act=none");
}

}  // namespace
}  // namespace autograph::cpu::testing
