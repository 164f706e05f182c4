// The tuned attention kernel as a tunable family: its space, the configurations it rejects and
// why, and the problems it refuses.
#include <gtest/gtest.h>

#include <string>

#include "attention_reference.hpp"
#include "autograph/core/error.hpp"

namespace autograph::cpu::testing {
namespace {

using tuned::Attention;
using tuned::AttentionConfig;
using tuned::AttentionProblem;
using tuned::AttentionSketch;

static_assert(tuning::TunableKernel<Attention>);

AttentionProblem const vit = AttentionProblem::transposed_keys(12, 197, 197, 64, 64, 0.125f);

std::string reason(AttentionProblem const& p, AttentionConfig const& c) {
  EXPECT_FALSE(Attention::is_valid(p, c)) << Attention::to_string(c);
  return Attention::why_invalid(p, c);
}

TEST(TunedAttentionSpace, ChoicesMapToKnobValuesAndTheDefaultIsValid) {
  auto knobs = Attention::knobs(vit);
  ASSERT_EQ(knobs.size(), 6u);
  EXPECT_EQ(knobs[1].name, "block_q");
  tuning::Choice last;
  for (auto const& k : knobs) last.push_back(k.values.size() - 1);
  AttentionConfig c = Attention::config(vit, last);
  EXPECT_EQ(c.sketch, AttentionSketch::whole_row);
  EXPECT_EQ(c.block_q, 64);
  EXPECT_EQ(c.block_k, 256);
  EXPECT_EQ(c.unroll, 8);
  EXPECT_EQ(c.threads, knobs[5].values.back());
  EXPECT_TRUE(Attention::is_valid(vit, Attention::default_config(vit))) << Attention::why_invalid(vit, Attention::default_config(vit));
  EXPECT_EQ(Attention::features(vit, c).size(), 17u);
  EXPECT_EQ(Attention::signature(vit), "attention b=12 tq=197 tk=197 d=64 dv=64 k=[d,tk] mask=none");
  EXPECT_EQ(Attention::to_string(AttentionConfig{AttentionSketch::streamed, 16, 64, 8, 4, 1}), "streamed bq=16 bk=64 w=8 unroll=4 threads=1");
  tuning::Choice out_of_range(knobs.size(), 0);
  out_of_range[2] = 99;
  EXPECT_THROW(Attention::config(vit, out_of_range), Error);
  EXPECT_THROW(Attention::config(vit, tuning::Choice{0, 0}), Error);
}

TEST(TunedAttentionSpace, InvalidConfigsAreRejectedWithAReason) {
  AttentionConfig const ok{AttentionSketch::streamed, 16, 64, 4, 4, 1};
  ASSERT_TRUE(Attention::is_valid(vit, ok));
  auto with = [&](auto edit) {
    AttentionConfig c = ok;
    edit(c);
    return reason(vit, c);
  };
  EXPECT_NE(with([](AttentionConfig& c) { c.block_k = 36; }).find("block_k 36 is not a multiple of 2 x vector_width 4"), std::string::npos);
  EXPECT_NE(with([](AttentionConfig& c) { c.unroll = 8, c.block_q = 4; }).find("unroll 8 > block_q 4"), std::string::npos);
  EXPECT_NE(with([](AttentionConfig& c) { c.unroll = 3; }).find("unroll 3"), std::string::npos);
  EXPECT_NE(with([](AttentionConfig& c) { c.vector_width = 32; }).find("vector_width 32"), std::string::npos);
  EXPECT_NE(with([](AttentionConfig& c) { c.threads = 100000; }).find("threads 100000"), std::string::npos);
  EXPECT_NE(with([](AttentionConfig& c) { c.block_q = 0; }).find("block_q 0"), std::string::npos);
  // The whole-row score buffer must stay small: 64 queries x 4096 keys are 1 MiB.
  auto long_seq = AttentionProblem::transposed_keys(1, 4096, 4096, 64, 64, 0.125f);
  AttentionConfig whole{AttentionSketch::whole_row, 64, 64, 4, 4, 1};
  EXPECT_NE(reason(long_seq, whole).find("whole_row"), std::string::npos);
  whole.sketch = AttentionSketch::streamed;
  EXPECT_TRUE(Attention::is_valid(long_seq, whole));
  // Running an invalid config throws with the problem and the reason.
  AttentionConfig bad = ok;
  bad.block_k = 36;
  std::vector<float> x(1);
  try {
    tuned::attention(vit, bad, x.data(), x.data(), x.data(), nullptr, x.data(), x);
    ADD_FAILURE() << "no error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("attention b=12 tq=197"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("block_k 36"), std::string::npos) << e.what();
  }
}

void expect_problem_error(AttentionProblem const& p, std::string const& needle) {
  std::vector<float> x(1 << 16);
  float const* mask = p.has_mask ? x.data() : nullptr;
  AttentionConfig c{AttentionSketch::streamed, 8, 32, 4, 1, 1};
  try {
    tuned::attention(p, c, x.data(), x.data(), x.data(), mask, x.data(), x);
    ADD_FAILURE() << "no error for " << p.to_string();
  } catch (Error const& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(p.to_string()), std::string::npos) << what;
    EXPECT_NE(what.find(needle), std::string::npos) << what;
  }
}

TEST(TunedAttentionSpace, BadProblemsThrowNamingTheProblem) {
  expect_problem_error(AttentionProblem::transposed_keys(1, 4, 4, 0, 4, 1.f), "must be >= 1");
  expect_problem_error(AttentionProblem::transposed_keys(1, 0, 4, 4, 4, 1.f), "must be >= 1");
  expect_problem_error(AttentionProblem::transposed_keys(1, 4, 4, 4, 4, INFINITY), "not finite");
  auto shared_key = AttentionProblem::transposed_keys(1, 4, 4, 4, 4, 1.f);
  shared_key.k_stride_t = 0;
  expect_problem_error(shared_key, "key strides");
  expect_problem_error(AttentionProblem::transposed_keys(6, 4, 4, 4, 4, 1.f).with_mask(4, 16, 0, 4, 1), "does not divide batch 6");
  // A workspace shorter than the config needs.
  auto p = AttentionProblem::transposed_keys(1, 4, 4, 4, 4, 1.f);
  AttentionConfig c{AttentionSketch::streamed, 8, 32, 4, 1, 1};
  std::vector<float> x(64);
  EXPECT_THROW(tuned::attention(p, c, x.data(), x.data(), x.data(), nullptr, x.data(), std::span<float>(x).first(1)), Error);
  // A mask pointer the problem does not declare.
  EXPECT_THROW(tuned::attention(p, c, x.data(), x.data(), x.data(), x.data(), x.data(), x), Error);
}

}  // namespace
}  // namespace autograph::cpu::testing
