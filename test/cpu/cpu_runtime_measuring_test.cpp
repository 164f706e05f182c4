// How CpuRuntime spends its runs: the schedule it chooses by measuring (FasterOf: a race that
// drops the loser, a choice a child graph takes from its parent), and the runs it does not
// spend — screening, settled comparisons, the deadline.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "autograph/cpu/runtime.hpp"
#include "autograph/graph/builder.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/sequential.hpp"

namespace autograph::cpu {
namespace {

/// A schedule that runs nothing: faster than any schedule that runs kernels, beyond noise.
struct RunNothing {
  static constexpr std::string_view name = "nothing";
  template <class Set, class R>
  ScheduledGraph<Set> operator()(Graph<Set> const& g, R&) const {
    return {g, Schedule{}, std::string(name), 0};
  }
};

/// A chain of matrix products: a few ms per run on one core.
Graph<> matmul_chain(int n = 6, std::int64_t size = 192) {
  GraphBuilder<> b;
  Value x = b.input("x", {size, size});
  for (int i = 0; i < n; ++i) x = b.relu(b.matmul(x, b.weight("w" + std::to_string(i), {size, size})));
  return std::move(b).build({x});
}

/// Timed runs `f` adds to the runtime's count.
template <class R, class F>
std::size_t runs_of(R& r, F&& f) {
  std::size_t before = r.timed_runs();
  f();
  return r.timed_runs() - before;
}

TEST(CpuScheduleChoice, TakesTheAlternativeOnlyWhenItMeasuresFaster) {
  Graph<> g = matmul_chain();
  BasicCpuRuntime<FasterOf<schedule::Sequential, RunNothing>> switches({.cores = 1});
  auto p = switches.plan(g);
  EXPECT_EQ(p.scheduled.policy, "nothing");
  EXPECT_EQ(p.other, "sequential");
  EXPECT_LT(p.chosen_ms, p.other_ms);
  EXPECT_NEAR(switches.measure(g), 0.0, p.other_ms / 2);  // measure() times the chosen plan

  BasicCpuRuntime<FasterOf<RunNothing, schedule::Sequential>> keeps({.cores = 1});
  auto q = keeps.plan(g);
  EXPECT_EQ(q.scheduled.policy, "nothing");
  EXPECT_EQ(q.other, "sequential");
}

TEST(CpuScheduleChoice, ReplanningRacesTheSchedulesAgain) {
  Graph<> g = matmul_chain(4, 128);
  BasicCpuRuntime<FasterOf<schedule::Sequential, RunNothing>> cpu({.cores = 1});
  cpu.plan(g);
  auto kept = runs_of(cpu, [&] { cpu.plan(g); });  // the choice is kept: nothing timed
  auto raced = runs_of(cpu, [&] { EXPECT_EQ(cpu.replan(g).scheduled.policy, "nothing"); });
  EXPECT_EQ(kept, 0u);
  EXPECT_GE(raced, 10u);  // at least 5 runs of each schedule
  EXPECT_EQ(runs_of(cpu, [&] { cpu.plan(g); }), 0u);  // and kept again
}

TEST(CpuScheduleChoice, TheLoserIsDroppedAndCounted) {
  Graph<> g = matmul_chain(4, 128);
  BasicCpuRuntime<FasterOf<schedule::Sequential, RunNothing>> cpu({.cores = 1});
  auto runs = runs_of(cpu, [&] { cpu.measure(g); });
  ScheduleChoiceStats const& st = cpu.schedule_choice_stats();
  EXPECT_EQ(st.raced, 1u);
  EXPECT_EQ(st.settled, 1u);
  EXPECT_EQ(st.inherited, 0u);
  // Blocks of 5 of the matmuls until they are slower beyond noise (one block on a quiet
  // machine; a loaded one can widen the first look's interval), then the empty schedule alone
  // to its 50. The exact block arithmetic is schedule_race_test's, with deterministic timers:
  // here the count depends on the machine's noise, and CI once needed two blocks.
  EXPECT_GE(st.losing_runs, 5u);
  EXPECT_EQ(st.losing_runs % 5, 0u);
  EXPECT_LT(st.losing_runs, 50u);  // dropped, not timed to the end
  EXPECT_EQ(runs, 50u + st.losing_runs);
  EXPECT_GT(st.losing_seconds, 0.0);
  EXPECT_LE(st.losing_seconds, cpu.measuring_seconds());
}

TEST(CpuScheduleChoice, AChildTakesItsParentsWideChoiceWithoutTimingTheLoser) {
  Graph<> parent = matmul_chain(4, 128), child = matmul_chain(3, 128);
  BasicCpuRuntime<FasterOf<schedule::Sequential, RunNothing>> cpu({.cores = 1});
  cpu.measure(parent);
  cpu.set_family(parent);
  std::size_t losing = cpu.schedule_choice_stats().losing_runs;
  EXPECT_EQ(runs_of(cpu, [&] { cpu.measure(child); }), 50u);  // the empty schedule only
  cpu.end_family();
  EXPECT_EQ(cpu.schedule_choice_stats().inherited, 1u);
  EXPECT_EQ(cpu.schedule_choice_stats().losing_runs, losing);
  auto p = cpu.plan(child);
  EXPECT_TRUE(p.inherited);
  EXPECT_EQ(p.scheduled.policy, "nothing");
  EXPECT_TRUE(std::isnan(p.other_ms));
  // As a parent itself, the child is raced first: a choice is inherited from races only.
  cpu.set_family(child);
  EXPECT_EQ(cpu.schedule_choice_stats().raced, 2u);
  EXPECT_FALSE(cpu.plan(child).inherited);
  cpu.end_family();
  // Outside a family a new graph is raced.
  cpu.measure(matmul_chain(2, 128));
  EXPECT_EQ(cpu.schedule_choice_stats().raced, 3u);
}

TEST(CpuScheduleChoice, TwoPoliciesGivingOneScheduleAreNotCompared) {
  Graph<> g = matmul_chain(2, 64);
  CpuRuntime cpu({.cores = 1});
  BasicCpuRuntime<FasterOf<schedule::Sequential, schedule::Sequential>> same({.cores = 1});
  auto p = same.plan(g);
  EXPECT_EQ(p.scheduled.policy, "sequential");
  EXPECT_TRUE(p.other.empty());
  EXPECT_TRUE(std::isnan(p.other_ms));
  EXPECT_GT(p.chosen_ms, 0.0);
  EXPECT_NE(cpu.kind().find("the faster of greedy-per-core and sequential schedules"), std::string::npos) << cpu.kind();
}

TEST(CpuScheduleChoice, StreamsAreNeverMoreThanTheCores) {
  // Eight independent branches: Nimble gives each a stream; CpuRuntime's schedule has at most
  // one per core, whichever of its two its race keeps.
  GraphBuilder<> b;
  Value x = b.input("x", {1, 16, 12, 12});
  std::vector<Value> branches;
  for (int i = 0; i < 8; ++i) branches.push_back(b.relu(b.conv2d(x, 16, {3, 3})));
  Graph<> g = std::move(b).build({b.concat(branches)});
  EXPECT_EQ(schedule::nimble(KernelDag(g)).num_streams(), 8u);
  for (int cores : {1, 2, 3}) {
    CpuRuntime cpu({.cores = cores});
    auto p = cpu.plan(g);
    EXPECT_LE(p.scheduled.schedule.num_streams(), static_cast<std::size_t>(cores)) << p.scheduled.policy;
    EXPECT_EQ(schedule::GreedyPerCore{}(g, cpu).schedule.num_streams(), static_cast<std::size_t>(cores));
  }
}

TEST(CpuRuntimeRuns, AClearComparisonStopsEarly) {
  SequentialCpuRuntime cpu({.cores = 1});
  Comparison c = cpu.compare(matmul_chain(8), matmul_chain(1));
  EXPECT_TRUE(c.faster);
  EXPECT_LT(c.runs, 50u);
  EXPECT_GE(c.runs, 5u);
}

TEST(CpuRuntimeRuns, AScreeningComparisonDropsASlowerChallengerAfterOnePair) {
  // A chain of 8 products against one of 1: behind in the first pair of blocks (5 runs each),
  // it is dropped there; the same comparison without screening times it until settled. The
  // incumbent, kept from one comparison to the next, still runs its own graph.
  SequentialCpuRuntime cpu({.warmup = 1, .cores = 1});
  Graph<> fast = matmul_chain(1), slow = matmul_chain(8);
  Comparison screened;
  EXPECT_EQ(runs_of(cpu, [&] { screened = cpu.compare(fast, slow, CompareOptions{.screen = true}); }), 10u);
  EXPECT_TRUE(screened.screened_out);
  EXPECT_FALSE(screened.faster);
  EXPECT_GT(screened.challenger_ms, screened.incumbent_ms);
  Comparison full = cpu.compare(fast, slow);
  EXPECT_FALSE(full.screened_out);
  EXPECT_FALSE(full.faster);
  EXPECT_GT(full.challenger_ms, 2 * full.incumbent_ms);
  Comparison swapped = cpu.compare(slow, fast, CompareOptions{.screen = true});
  EXPECT_FALSE(swapped.screened_out);
  EXPECT_TRUE(swapped.faster);
  EXPECT_GT(swapped.incumbent_ms, 2 * swapped.challenger_ms);
}

TEST(CpuRuntimeRuns, AScreenedChallengerRunsTheIncumbentsScheduleUnraced) {
  CpuRuntime cpu({.warmup = 1, .cores = 1});
  Graph<> fast = matmul_chain(1), slow = matmul_chain(8);
  cpu.plan(fast);  // the incumbent's choice, raced
  std::size_t raced = cpu.schedule_choice_stats().raced;
  EXPECT_EQ(runs_of(cpu, [&] { EXPECT_TRUE(cpu.compare(fast, slow, CompareOptions{.screen = true}).screened_out); }), 10u);
  EXPECT_EQ(cpu.schedule_choice_stats().raced, raced);
}

TEST(CpuRuntimeRuns, ScreeningAndTheDeadlineStopAtTheMinimum) {
  // Counted in runs, not seconds: preparing a graph (lowering, oneDNN's primitives) takes
  // longer than its runs under a sanitizer, whatever the runs saved.
  Graph<> g = matmul_chain();
  SequentialCpuRuntime cpu({.warmup = 1, .cores = 1});
  EXPECT_EQ(runs_of(cpu, [&] { cpu.measure(g); }), 50u);
  EXPECT_EQ(runs_of(cpu, [&] { cpu.screen(g, 1e-9); }), 5u);  // clearly slower than 1 fs after its minimum
  cpu.set_deadline(std::chrono::steady_clock::now());
  EXPECT_EQ(runs_of(cpu, [&] { cpu.measure(g); }), 5u);
  // screen() with an unreachable bound measures as measure() does.
  cpu.set_deadline(std::chrono::steady_clock::time_point::max());
  EXPECT_EQ(runs_of(cpu, [&] { EXPECT_GT(cpu.screen(g, 1e9), 0.0); }), 50u);
}

}  // namespace
}  // namespace autograph::cpu
