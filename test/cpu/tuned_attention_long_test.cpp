// The tuned attention kernel at DETR's and SETR's sequence lengths (issue 18), where the score
// matrix of all heads is past this machine's caches: a sample of its space computes the naive
// reference's output (normwise <= 1e-5), one head of each shape (heads are independent work
// items of the same loop, so one has the structure of all); and the untuned default holds a
// block's score rows while they fit whole_row's L2 bound, and streams the keys past it.
#include <gtest/gtest.h>

#include "attention_reference.hpp"

namespace autograph::cpu::testing {
namespace {

using tuned::Attention;
using tuned::AttentionConfig;
using tuned::AttentionProblem;

/// Every `stride`-th valid point of the space (mixed radix over the knobs) matches the
/// reference; returns how many ran.
std::size_t expect_sample_matches(AttentionProblem const& p, std::size_t stride) {
  auto q = random_floats(p.batch * p.tq * p.d, 1), k = random_floats(p.batch * p.tk * p.d, 2), v = random_floats(p.batch * p.tk * p.dv, 3);
  auto want = naive_attention(p, q, k, v, {});
  auto knobs = Attention::knobs(p);
  std::size_t total = 1, ran = 0;
  for (auto const& kn : knobs) total *= kn.values.size();
  for (std::size_t n = 0; n < total; n += stride) {
    tuning::Choice ch;
    for (std::size_t i = 0, rest = n; i < knobs.size(); rest /= knobs[i].values.size(), ++i) ch.push_back(rest % knobs[i].values.size());
    AttentionConfig c = Attention::config(p, ch);
    if (!Attention::is_valid(p, c)) continue;
    EXPECT_LE(normwise_error(run_tuned(p, c, q, k, v, {}), want), 1e-5) << p.to_string() << " " << Attention::to_string(c);
    ++ran;
  }
  return ran;
}

TEST(TunedAttentionLong, DetrEncoderHeadMatchesReferenceOverASampleOfTheSpace) {
  auto p = AttentionProblem::transposed_keys(1, 1050, 1050, 32, 32, 1.f / std::sqrt(32.f));
  EXPECT_GE(expect_sample_matches(p, 23), 15u);
}

TEST(TunedAttentionLong, DetrCrossAttentionHeadMatchesReferenceOverASampleOfTheSpace) {
  auto p = AttentionProblem::transposed_keys(1, 100, 1050, 32, 32, 1.f / std::sqrt(32.f));  // 100 queries, 1050 memory tokens
  EXPECT_GE(expect_sample_matches(p, 11), 30u);
}

TEST(TunedAttentionLong, SetrHeadMatchesReferenceOverASampleOfTheSpace) {
  auto p = AttentionProblem::transposed_keys(1, 577, 577, 64, 64, 0.125f);
  EXPECT_GE(expect_sample_matches(p, 23), 15u);
}

TEST(TunedAttentionLong, DefaultIsWholeRowWhileItsScoreRowsFitAndStreamedPast) {
  for (std::int64_t tk : {197, 577, 1050, 4096}) {
    auto p = AttentionProblem::transposed_keys(8, 100, tk, 32, 32, 1.f);
    AttentionConfig c = Attention::default_config(p);
    EXPECT_EQ(c.sketch, tuned::AttentionSketch::whole_row) << p.to_string() << ": " << Attention::to_string(c);
    EXPECT_TRUE(Attention::is_valid(p, c)) << Attention::why_invalid(p, c);
  }
  // 16 rows of 4097 scores (4100 to 4112 floats each, rounded up to the vectors) are past the 256 KiB bound.
  auto past = AttentionProblem::transposed_keys(1, 16, 4097, 32, 32, 1.f);
  AttentionConfig c = Attention::default_config(past);
  EXPECT_EQ(c.sketch, tuned::AttentionSketch::streamed) << Attention::to_string(c);
  EXPECT_TRUE(Attention::is_valid(past, c)) << Attention::why_invalid(past, c);
  auto q = random_floats(past.tq * past.d, 1), k = random_floats(past.tk * past.d, 2), v = random_floats(past.tk * past.dv, 3);
  EXPECT_LE(normwise_error(run_tuned(past, c, q, k, v, {}), naive_attention(past, q, k, v, {})), 1e-5);
}

}  // namespace
}  // namespace autograph::cpu::testing
