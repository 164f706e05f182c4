// FusedAttention on the CPU runtime: the tiled kernel (cpu/tuned/attention.hpp) against the
// op's reference kernel, with every mask the kernel reads; a node it cannot read is refused by
// name; and a tuning log's fastest configuration is the one a node is prepared with.
#include <autograph/cpu/tuned/fused_attention_problem.hpp>
#include <autograph/cpu/tuned/tuning_source.hpp>

#include <memory>

#include "cpu/kernel_harness.hpp"

namespace autograph::cpu {
namespace {

using namespace testing;

TEST(CpuFusedAttentionKernel, MatchesTheReferenceWithAndWithoutMasks) {
  FusedAttention op{0.125f};
  // ViT's layout [B, H, T, D] with an odd token count, and a 3-D batch of heads.
  expect_matches(op, {rnd({1, 3, 13, 8}, 1), rnd({1, 3, 8, 13}, 2), rnd({1, 3, 13, 8}, 3)});
  expect_matches(op, {rnd({6, 1, 16}, 4), rnd({6, 16, 37}, 5), rnd({6, 37, 5}, 6)});
  // Masks: one [Tq, Tk] for every head, a [B, 1, Tq, Tk] padding mask over the heads, a
  // [B, H, 1, Tk] key mask, and a full one.
  Tensor q = rnd({2, 3, 7, 8}, 7), kt = rnd({2, 3, 8, 9}, 8), v = rnd({2, 3, 9, 4}, 9);
  for (Shape m : {Shape{7, 9}, Shape{2, 1, 7, 9}, Shape{2, 3, 1, 9}, Shape{2, 3, 7, 9}, Shape{1, 3, 7, 9}})
    expect_matches(op, {q, kt, v, rnd(m, 10, -3.f, 0.f)});
}

TEST(CpuFusedAttentionKernel, RefusesWhatItCannotReadNamingIt) {
  FusedAttention op{1.f};
  // q shared by two batches of keys: the kernel reads q, kT and v densely over one batch index.
  auto in = descs_of({rnd({1, 4, 8}, 1), rnd({2, 8, 5}, 2), rnd({2, 5, 8}, 3)});
  auto why = tuned::attention_problem_of(op, in);
  ASSERT_FALSE(why.problem);
  EXPECT_NE(why.why_not.find("q [1,4,8]"), std::string::npos) << why.why_not;
  try {
    prepare(op, {rnd({1, 4, 8}, 1), rnd({2, 8, 5}, 2), rnd({2, 5, 8}, 3)});
    ADD_FAILURE() << "prepared a node the kernel cannot read";
  } catch (ExecutionError const& e) {
    EXPECT_NE(std::string(e.what()).find("unsupported on the CPU runtime"), std::string::npos) << e.what();
  }
  // A padding mask [B, 1, Tq, Tk] over [B, H] heads splits into a dense outer and a broadcast inner group.
  EXPECT_TRUE(tuned::attention_problem_of(op, descs_of({rnd({2, 3, 4, 8}, 1), rnd({2, 3, 8, 5}, 2), rnd({2, 3, 5, 8}, 3), rnd({2, 1, 4, 5}, 4)})).problem);
}

TEST(CpuFusedAttentionKernel, PreparesTheFastestLoggedConfiguration) {
  FusedAttention op{0.5f};
  std::vector<Tensor> in{rnd({2, 11, 8}, 1), rnd({2, 8, 11}, 2), rnd({2, 11, 8}, 3)};
  auto problem = tuned::attention_problem_of(op, descs_of(in)).problem;
  ASSERT_TRUE(problem);
  auto log = std::make_shared<tuning::TuningLog>();
  auto record = [&](tuned::AttentionConfig const& c, double latency) {
    std::vector<std::pair<std::string, std::int64_t>> knobs{{"sketch", c.sketch == tuned::AttentionSketch::whole_row ? 1 : 0},
                                                            {"block_q", c.block_q}, {"block_k", c.block_k},
                                                            {"vector_width", c.vector_width}, {"unroll", c.unroll}, {"threads", c.threads}};
    log->append({"test cpu", "attention", tuned::Attention::signature(*problem), knobs, tuned::Attention::to_string(c), latency, "2026-11-27T00:00:00Z"});
  };
  tuned::AttentionConfig fast{.sketch = tuned::AttentionSketch::whole_row, .block_q = 8, .block_k = 32, .vector_width = 4, .unroll = 2, .threads = 1};
  tuned::AttentionConfig slow{.sketch = tuned::AttentionSketch::streamed, .block_q = 32, .block_k = 64, .vector_width = 4, .unroll = 1, .threads = 1};
  record(slow, 2e-3);
  record(fast, 1e-3);
  auto step = [&] {
    auto node = prepare(op, in);
    return node->prep.steps().empty() ? std::string("no step") : node->prep.steps()[0].what;
  };
  tuned::use_tuning_log(log, "another cpu");  // measured elsewhere: not trusted here
  EXPECT_NE(step().find("default"), std::string::npos) << step();
  tuned::use_tuning_log(log, "test cpu");
  EXPECT_EQ(step(), "tiled attention, tuned " + tuned::Attention::to_string(fast));
  expect_matches(op, in);  // and it computes the same
  tuned::use_tuning_log(nullptr, {});
  EXPECT_NE(step().find("default"), std::string::npos) << step();
}

}  // namespace
}  // namespace autograph::cpu
