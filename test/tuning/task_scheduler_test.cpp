// The task scheduler (Eq. 4): rounds go to the task whose trials lower the weighted latency
// fastest, so a heavier task gets more of the budget; a task whose latency no longer improves
// stops early and leaves the budget to the others.
#include <autograph/tuning/tuner.hpp>
#include <gtest/gtest.h>

#include "tuning/synthetic_tuner.hpp"

namespace autograph::tuning {
namespace {

using testing::SyntheticMatmul;

using testing::synthetic_latency;
using testing::tune_synthetic;

TEST(TaskScheduler, GivesEveryTaskAFirstRoundThenTheSteepestWeightedDescent) {
  TaskScheduler s({1, 4});
  s.record(0, 1, 10e-3);
  s.record(1, 1, 10e-3);
  EXPECT_EQ(s.next(), 0u);  // t = (1, 1): the first round of each, in order
  s.record(0, 16, 5e-3);
  EXPECT_EQ(s.next(), 1u);
  s.record(1, 16, 5e-3);
  // Same history, 4x the weight: df/dt_1 = 4 df/dt_0.
  EXPECT_DOUBLE_EQ(s.gradient(1), 4 * s.gradient(0));
  EXPECT_EQ(s.next(), 1u);
  // Task 0 halving again is steeper than task 1 at weight 4 standing still:
  // 0.2 * (-2.5e-3 / 16) + 0.8 * (-2.5e-3 / 33) vs 4 * (0.2 * (-5e-3 / 16) + 0.8 * (-5e-3 / 17)).
  s.record(0, 16, 2.5e-3);
  EXPECT_LT(s.gradient(1), s.gradient(0));
  EXPECT_EQ(s.next(), 1u);
}

TEST(TaskScheduler, StopsATaskAtItsTargetOrAfterTrialsWithoutImprovement) {
  TaskScheduler s({1, 1}, {std::nullopt, 2e-3}, {.early_stopping = 32});
  s.record(0, 1, 10e-3);
  s.record(1, 1, 10e-3);
  s.record(1, 16, 1.5e-3);
  EXPECT_EQ(s.stop(1), TaskStop::target_met);
  s.record(0, 16, 9.95e-3);  // 0.5% faster: below the 1% that counts as an improvement
  EXPECT_EQ(s.stop(0), TaskStop::running);
  s.record(0, 16, 9.9e-3);
  EXPECT_EQ(s.stop(0), TaskStop::early_stopped);
  EXPECT_EQ(s.describe_stop(0), "stopped early: no improvement of 1% in the last 32 trials");
  EXPECT_EQ(s.next(), std::nullopt);
}

TEST(Tuner, SpendsMoreTrialsOnTheHeavierTask) {
  SyntheticMatmul::Problem a, b{.m = 512, .n = 2048, .k = 1024};
  TuneOptions o;
  o.scheduler.early_stopping = 0;
  auto light_b = tune_synthetic({{a, 8}, {b, 1}}, 300, synthetic_latency(), o);
  auto heavy_b = tune_synthetic({{a, 1}, {b, 8}}, 300, synthetic_latency(), o);
  std::printf("weights 8:1 -> trials %zu:%zu; weights 1:8 -> trials %zu:%zu\n", light_b[0].trials, light_b[1].trials, heavy_b[0].trials,
              heavy_b[1].trials);
  EXPECT_EQ(light_b[0].trials + light_b[1].trials, 300u);
  EXPECT_GT(light_b[0].trials, 2 * light_b[1].trials);
  EXPECT_GT(heavy_b[1].trials, 2 * heavy_b[0].trials);
}

TEST(Tuner, StopsAFlatTaskEarlyWhileTheOtherTunesOn) {
  SyntheticMatmul::Problem normal, flat{.flat = true};
  std::vector<TuneProgress> stops;
  TuneOptions o{.progress = [&](TuneProgress const& p) {
    if (p.stop != TaskStop::running) stops.push_back(p);
  }};
  auto r = tune_synthetic({{normal}, {flat}}, 300, synthetic_latency(), o);
  std::printf("normal: %zu trials, %s; flat: %zu trials, %s\n", r[0].trials, r[0].stop_reason.c_str(), r[1].trials, r[1].stop_reason.c_str());
  EXPECT_EQ(r[1].stop, TaskStop::early_stopped) << r[1].stop_reason;
  EXPECT_EQ(r[1].trials, 1u + 64);  // the default, then 4 rounds of 16 that change nothing
  EXPECT_DOUBLE_EQ(r[1].best_latency_s, r[1].default_latency_s);
  EXPECT_GT(r[0].trials, 2 * r[1].trials);
  // The progress callback says when each stopped, with its trials then.
  ASSERT_EQ(stops.size(), 2u);
  auto flat_stop = std::find_if(stops.begin(), stops.end(), [](TuneProgress const& p) { return p.signature == "m1024 n1024 k1024 flat"; });
  ASSERT_NE(flat_stop, stops.end());
  EXPECT_EQ(flat_stop->task_trials, 65u);
  EXPECT_EQ(flat_stop->stop, TaskStop::early_stopped);
}

}  // namespace
}  // namespace autograph::tuning
