// race_schedules (runtime/schedule_race.hpp) on schedules whose latencies the test sets: the
// race drops the slower schedule after one block when the gap is wide, runs both to the budget
// when the gap is within noise, never chooses the slower one beyond noise, and a child graph
// takes its parent's choice only while the evidence allows.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <numeric>
#include <random>

#include "autograph/runtime/schedule_race.hpp"

namespace autograph {
namespace {

/// A schedule whose runs take `ms`, with normal noise of relative width `noise` and, with
/// probability `outliers`, a run 50% slower (a preempted run).
struct FakeSchedule {
  double ms;
  double noise = 0.01;
  std::uint64_t seed = 1;
  double outliers = 0;
  std::mt19937_64 rng{seed};
  std::size_t calls = 0, runs = 0;

  std::vector<double> operator()(std::size_t n) {
    ++calls;
    runs += n;
    std::normal_distribution<double> jitter(0, noise * ms);
    std::bernoulli_distribution preempted(outliers);
    std::vector<double> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(ms + jitter(rng) + (preempted(rng) ? ms / 2 : 0));
    return out;
  }
};

auto const never_done = [](std::vector<double> const&) { return false; };

TEST(ScheduleRace, AWideGapDropsTheSlowerAfterOneBlock) {
  FakeSchedule a{.ms = 20}, b{.ms = 10, .seed = 2};
  ScheduleChoice c = race_schedules(a, b, never_done);
  EXPECT_TRUE(c.second);
  EXPECT_EQ(c.basis, ChoiceBasis::raced);
  EXPECT_TRUE(c.settled);
  EXPECT_FALSE(c.declined);
  EXPECT_EQ(c.other_runs, 5u);   // one block
  EXPECT_EQ(a.runs, 5u);
  EXPECT_EQ(c.chosen_runs, 50u);  // the faster runs on to the run limit, as a single schedule's measurement does
  EXPECT_NEAR(c.chosen_ms, 10, 0.1);
  EXPECT_GT(c.lead_ms, 0);
  EXPECT_LT(c.lead_ms, 10);  // the low end of the lead's interval
}

TEST(ScheduleRace, WithinNoiseBothRunToTheBudget) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    FakeSchedule a{.ms = 10, .noise = 0.05, .seed = seed}, b{.ms = 10.01, .noise = 0.05, .seed = seed + 100};
    ScheduleChoice c = race_schedules(a, b, never_done);
    EXPECT_FALSE(c.settled) << "seed " << seed;
    EXPECT_EQ(a.runs, 50u) << "seed " << seed;
    EXPECT_EQ(b.runs, 50u) << "seed " << seed;
    EXPECT_LE(c.chosen_ms, c.other_ms) << "seed " << seed;  // the lower median
  }
  // A budget of 200 ms of runs per schedule: both stop at 20 runs.
  FakeSchedule a{.ms = 10, .noise = 0.05}, b{.ms = 10.01, .noise = 0.05, .seed = 7};
  auto budget = [](std::vector<double> const& s) { return s.size() >= 20 || std::accumulate(s.begin(), s.end(), 0.0) >= 200; };
  ScheduleChoice c = race_schedules(a, b, budget);
  EXPECT_FALSE(c.settled);
  EXPECT_EQ(a.runs, 20u);
  EXPECT_EQ(b.runs, 20u);
}

TEST(ScheduleRace, NeverChoosesTheSlowerBeyondNoise) {
  // Gaps from within the 0.5% margin to 2x, noise 1-3% with 5% preempted runs, either side
  // faster: 300 races. Beyond noise (a gap of 3% and more: over ten standard errors of the difference
  // of 50-run medians at 3% noise), the faster must win every race.
  std::size_t loser_runs_wide = 0, wide = 0, settled = 0, wrong_settled = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    std::mt19937_64 pick(seed);
    double gap = std::array{0.002, 0.01, 0.03, 0.1, 0.5, 1.0}[pick() % 6];
    double noise = std::array{0.01, 0.02, 0.03}[pick() % 3];
    bool second_faster = pick() % 2;
    double fast = 10, slow = 10 * (1 + gap);
    FakeSchedule a{.ms = second_faster ? slow : fast, .noise = noise, .seed = seed, .outliers = 0.05};
    FakeSchedule b{.ms = second_faster ? fast : slow, .noise = noise, .seed = seed + 1000, .outliers = 0.05};
    ScheduleChoice c = race_schedules(a, b, never_done);
    if (gap >= 0.03) {
      EXPECT_EQ(c.second, second_faster) << "seed " << seed << ", gap " << gap << ", noise " << noise;
      if (gap >= 0.5) {
        loser_runs_wide += c.other_runs;
        ++wide;
      }
    }
    settled += c.settled;
    wrong_settled += c.settled && c.second != second_faster;
  }
  ASSERT_GT(wide, 0u);
  EXPECT_LE(loser_runs_wide, 6 * wide);  // a gap of 1.5x and more: the loser is dropped after (about) one block
  // A drop on the wrong side happens within noise only (a gap of 1% or less, above), when
  // the first block of the faster caught a burst of preempted runs: rare.
  EXPECT_LE(wrong_settled * 100, settled);
}

TEST(ScheduleRace, DoneAfterOneBlockStopsBoth) {
  // A deadline past: each schedule one block, the lower median.
  FakeSchedule a{.ms = 10}, b{.ms = 10.2, .seed = 3};
  ScheduleChoice c = race_schedules(a, b, [](std::vector<double> const&) { return true; });
  EXPECT_EQ(a.runs, 5u);
  EXPECT_EQ(b.runs, 5u);
  EXPECT_LE(c.chosen_ms, c.other_ms);
}

TEST(ScheduleRace, OnlyTheChoiceWantedStopsAtTheDrop) {
  FakeSchedule a{.ms = 10}, b{.ms = 30, .seed = 4};
  ScheduleChoice c = race_schedules(a, b, never_done, nullptr, {.survivor_runs_on = false});
  EXPECT_FALSE(c.second);
  EXPECT_TRUE(c.settled);
  EXPECT_EQ(a.runs, 5u);
  EXPECT_EQ(b.runs, 5u);
}

/// A parent's race: the first schedule 10 ms, the second 20 ms.
ScheduleChoice wide_parent() {
  FakeSchedule a{.ms = 10, .seed = 5}, b{.ms = 20, .seed = 6};
  ScheduleChoice p = race_schedules(a, b, never_done);
  EXPECT_TRUE(p.settled);
  EXPECT_FALSE(p.second);
  return p;
}

TEST(ScheduleRace, AChildWithinHalfTheLeadTakesItsParentsChoice) {
  ScheduleChoice parent = wide_parent();
  FakeSchedule a{.ms = 11, .seed = 7}, b{.ms = 21, .seed = 8};  // one rewrite later: 1 ms slower either way
  ScheduleChoice c = race_schedules(a, b, never_done, &parent);
  EXPECT_EQ(c.basis, ChoiceBasis::inherited);
  EXPECT_FALSE(c.second);
  EXPECT_EQ(b.calls, 0u);  // the parent's loser is never prepared nor timed
  EXPECT_EQ(c.other_runs, 0u);
  EXPECT_TRUE(std::isnan(c.other_ms));
  EXPECT_EQ(a.runs, 50u);
  EXPECT_NEAR(c.chosen_ms, 11, 0.1);
}

TEST(ScheduleRace, AChildThatMovedHalfTheLeadIsRaced) {
  ScheduleChoice parent = wide_parent();
  // A rewrite that made the parent's winner 7 ms slower (more than half its lead of about
  // 9.7 ms) and its loser faster: the child is raced, and the other schedule wins.
  FakeSchedule a{.ms = 17, .seed = 9}, b{.ms = 12, .seed = 10};
  ScheduleChoice c = race_schedules(a, b, never_done, &parent);
  EXPECT_EQ(c.basis, ChoiceBasis::raced);
  EXPECT_TRUE(c.declined);
  EXPECT_TRUE(c.second);
  EXPECT_GT(b.calls, 0u);
  EXPECT_EQ(a.runs, 5u);  // the probe's block is the race's first
}

TEST(ScheduleRace, OnlyASettledRacedChoiceIsPassedOn) {
  FakeSchedule pa{.ms = 10, .noise = 0.05, .seed = 11}, pb{.ms = 10.01, .noise = 0.05, .seed = 12};
  ScheduleChoice unsettled = race_schedules(pa, pb, never_done);
  ASSERT_FALSE(unsettled.settled);
  FakeSchedule a{.ms = 10, .seed = 13}, b{.ms = 10.01, .seed = 14};
  race_schedules(a, b, never_done, &unsettled);
  EXPECT_GT(b.calls, 0u);

  ScheduleChoice inherited = wide_parent();
  inherited.basis = ChoiceBasis::inherited;
  FakeSchedule c{.ms = 10, .seed = 15}, d{.ms = 20, .seed = 16};
  EXPECT_EQ(race_schedules(c, d, never_done, &inherited).basis, ChoiceBasis::raced);
  EXPECT_GT(d.calls, 0u);
}

}  // namespace
}  // namespace autograph
