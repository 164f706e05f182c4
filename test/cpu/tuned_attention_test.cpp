// The tuned attention kernel computes the naive reference's output (normwise relative error
// <= 1e-5) for the configurations of its space, on shapes with remainders in every tile.
#include <gtest/gtest.h>

#include "attention_reference.hpp"

namespace autograph::cpu::testing {
namespace {

using tuned::Attention;
using tuned::AttentionConfig;
using tuned::AttentionProblem;

/// Every `stride`-th point of the space (mixed radix over the knobs), valid ones only.
std::vector<AttentionConfig> sample_space(AttentionProblem const& p, std::size_t stride) {
  auto knobs = Attention::knobs(p);
  std::size_t total = 1;
  for (auto const& k : knobs) total *= k.values.size();
  std::vector<AttentionConfig> configs;
  for (std::size_t n = 0; n < total; n += stride) {
    tuning::Choice ch;
    for (std::size_t i = 0, rest = n; i < knobs.size(); rest /= knobs[i].values.size(), ++i) ch.push_back(rest % knobs[i].values.size());
    AttentionConfig c = Attention::config(p, ch);
    if (Attention::is_valid(p, c)) configs.push_back(c);
  }
  return configs;
}

struct Data {
  std::vector<float> q, k, v, mask;
};
Data data_for(AttentionProblem const& p, std::int64_t mask_elements = 0) {
  return {random_floats(p.batch * p.tq * p.d, 1), random_floats(p.batch * p.tk * p.d, 2), random_floats(p.batch * p.tk * p.dv, 3),
          mask_elements ? random_floats(mask_elements, 4) : std::vector<float>{}};
}

/// Every sampled configuration matches the reference; returns how many ran.
std::size_t expect_space_matches(AttentionProblem const& p, Data const& in, std::size_t stride) {
  auto want = naive_attention(p, in.q, in.k, in.v, in.mask);
  auto configs = sample_space(p, stride);
  for (AttentionConfig const& c : configs) {
    double e = normwise_error(run_tuned(p, c, in.q, in.k, in.v, in.mask), want);
    EXPECT_LE(e, 1e-5) << p.to_string() << " " << Attention::to_string(c);
  }
  return configs.size();
}

TEST(TunedAttention, VitShapeMatchesReferenceOverASampleOfTheSpace) {
  auto p = AttentionProblem::transposed_keys(2 * 3, 197, 197, 64, 64, 0.125f);  // leading dims [2, 3]
  EXPECT_GE(expect_space_matches(p, data_for(p), 7), 40u);
}

TEST(TunedAttention, OddShapesMatchReferenceForEveryConfig) {
  // Tk = 77 and Tq = 13 leave remainders in every key block and query block; d = 33 and
  // dv = 19 are multiples of no vector width (the values are padded).
  auto p = AttentionProblem::transposed_keys(2, 13, 77, 33, 19, 0.3f);
  EXPECT_GE(expect_space_matches(p, data_for(p), 1), 100u);
}

TEST(TunedAttention, SingleQueryMatchesReference) {
  auto p = AttentionProblem::transposed_keys(3, 1, 197, 64, 64, 0.125f);
  // unroll > block_q is invalid, so Tq = 1 runs on 1-row tiles only through the remainder path.
  EXPECT_GE(expect_space_matches(p, data_for(p), 3), 40u);
}

TEST(TunedAttention, RowKeyLayoutMatchesReference) {
  auto p = AttentionProblem::row_keys(4, 50, 197, 64, 32, 0.125f);  // k [b, tk, d]
  EXPECT_GE(expect_space_matches(p, data_for(p), 5), 40u);
}

TEST(TunedAttention, MaskBroadcastOverHeadsMatchesReference) {
  // mask [2, 1, 31, 45] over leading dims [2, 3]: one mask per batch entry, shared by its heads.
  std::int64_t const tq = 31, tk = 45;
  auto p = AttentionProblem::transposed_keys(2 * 3, tq, tk, 16, 16, 0.25f).with_mask(3, tq * tk, 0, tk, 1);
  EXPECT_GE(expect_space_matches(p, data_for(p, 2 * tq * tk), 3), 40u);
}

TEST(TunedAttention, KeyMaskWithMaskedOutBlocksMatchesReference) {
  // mask [tk] broadcast over batch and queries: the first 70 keys -inf, so the streamed sketch
  // meets whole blocks masked out before any score counts, then large finite offsets.
  std::int64_t const tk = 150;
  auto p = AttentionProblem::transposed_keys(2, 9, tk, 8, 8, 1.f).with_mask(1, 0, 0, 0, 1);
  Data in = data_for(p, tk);
  for (std::int64_t t = 0; t < tk; ++t) in.mask[t] = t < 70 ? -std::numeric_limits<float>::infinity() : 30.f * in.mask[t];
  EXPECT_GE(expect_space_matches(p, in, 1), 100u);
}

TEST(TunedAttention, FullyMaskedRowGivesNaNLikeTheUnfusedSoftmax) {
  std::int64_t const tq = 4, tk = 40;
  auto p = AttentionProblem::transposed_keys(1, tq, tk, 8, 8, 1.f).with_mask(1, 0, 0, tk, 1);
  Data in = data_for(p, tq * tk);
  for (std::int64_t t = 0; t < tk; ++t) in.mask[2 * tk + t] = -std::numeric_limits<float>::infinity();  // query 2 sees no key
  for (auto sketch : {tuned::AttentionSketch::streamed, tuned::AttentionSketch::whole_row}) {
    AttentionConfig c = Attention::default_config(p);
    c.sketch = sketch;
    c.block_q = 2;
    c.unroll = 2;
    auto out = run_tuned(p, c, in.q, in.k, in.v, in.mask);
    for (std::int64_t i = 0; i < tq; ++i) EXPECT_EQ(std::isnan(out[static_cast<std::size_t>(i * 8)]), i == 2) << Attention::to_string(c) << " row " << i;
    EXPECT_LE(normwise_error(out, naive_attention(p, in.q, in.k, in.v, in.mask)), 1e-5);
  }
}

}  // namespace
}  // namespace autograph::cpu::testing
