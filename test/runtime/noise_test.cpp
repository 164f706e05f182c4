// compare_samples: "faster" only beyond the noise the samples themselves show.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <random>
#include <utility>

#include "autograph/runtime/noise.hpp"

namespace autograph {
namespace {

std::vector<double> samples(double center, double spread, std::uint64_t seed, int n = 50) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(center, spread);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(d(rng));
  return v;
}

TEST(CompareSamples, EqualDistributionsAreNotFaster) {
  int faster = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) faster += compare_samples(samples(10, 0.5, seed), samples(10, 0.5, seed + 1000)).faster;
  EXPECT_LE(faster, 2);  // z = 3: about 1 in 700 by chance
}

TEST(CompareSamples, AClearGainIsFasterAndASmallOneWithinNoiseIsNot) {
  EXPECT_TRUE(compare_samples(samples(10, 0.2, 1), samples(9, 0.2, 2)).faster);
  auto c = compare_samples(samples(10, 1.0, 3), samples(9.9, 1.0, 4));
  EXPECT_FALSE(c.faster);
  EXPECT_GT(c.margin_ms, 0.1);
  // Below half a percent never counts, however tight the samples.
  EXPECT_FALSE(compare_samples(std::vector<double>(50, 10.0), std::vector<double>(50, 9.97)).faster);
  EXPECT_TRUE(compare_samples(std::vector<double>(50, 10.0), std::vector<double>(50, 9.9)).faster);
}

TEST(CompareSamples, OutliersDoNotWidenTheMargin) {
  auto a = samples(10, 0.1, 5), b = samples(9.5, 0.1, 6);
  a[0] = b[0] = 100;  // one preempted run each
  EXPECT_TRUE(compare_samples(a, b).faster);
}

}  // namespace
}  // namespace autograph

namespace autograph {
namespace {

TEST(SettledVerdict, DecidesOnlyWhenTheIntervalClearsTheMargin) {
  EXPECT_EQ(settled_verdict(samples(10, 0.05, 7, 10), samples(9, 0.05, 8, 10)), Verdict::faster);
  EXPECT_EQ(settled_verdict(samples(10, 0.01, 9, 10), samples(10, 0.01, 10, 10)), Verdict::not_faster);  // a gain below 0.5% at most
  EXPECT_EQ(settled_verdict(samples(10, 0.05, 11, 10), samples(11, 0.05, 12, 10)), Verdict::not_faster);
  // A gain near the margin, or noise wider than the gain: more samples could change the verdict.
  EXPECT_EQ(settled_verdict(samples(10, 0.02, 13, 10), samples(9.95, 0.02, 14, 10)), Verdict::undecided);
  EXPECT_EQ(settled_verdict(samples(10, 1.0, 15, 10), samples(9.5, 1.0, 16, 10)), Verdict::undecided);
  EXPECT_EQ(settled_verdict({10.0}, {1.0}), Verdict::undecided);  // no spread to judge yet
}

TEST(ClearlyAbove, OnlyBeyondTheNoise) {
  EXPECT_TRUE(clearly_above(samples(12, 0.1, 17, 5), 10));
  EXPECT_FALSE(clearly_above(samples(10.1, 1.0, 18, 5), 10));
  EXPECT_FALSE(clearly_above(samples(9, 0.1, 19, 5), 10));
  EXPECT_FALSE(clearly_above(samples(12, 0.1, 20, 5), std::numeric_limits<double>::infinity()));
}

/// A source of `n` timed runs drawn from N(center, spread), counting the runs it gave.
struct Source {
  double center, spread;
  std::mt19937_64 rng;
  std::size_t runs = 0;
  std::vector<double> operator()(std::size_t n) {
    std::normal_distribution<double> d(center, spread);
    std::vector<double> v;
    for (std::size_t i = 0; i < n; ++i) v.push_back(d(rng));
    runs += n;
    return v;
  }
};
auto never = [](auto const&, auto const&) { return false; };

TEST(InterleavedCompare, StopsOnceTheVerdictIsSettled) {
  Source a{10, 0.1, std::mt19937_64(21)}, b{8, 0.1, std::mt19937_64(22)};
  auto c = interleaved_compare(std::ref(a), std::ref(b), 50, never);
  EXPECT_TRUE(c.faster);
  EXPECT_EQ(c.runs, 15u);  // a 20% gain with 1% noise: three pairs of blocks (two show no spread between blocks to trust)
  EXPECT_EQ(a.runs, 15u);
  Source same_a{10, 0.01, std::mt19937_64(23)}, same_b{10, 0.01, std::mt19937_64(24)};
  auto n = interleaved_compare(std::ref(same_a), std::ref(same_b), 50, never);
  EXPECT_FALSE(n.faster);
  EXPECT_LT(n.runs, 50u);
}

TEST(InterleavedCompare, RunsToTheMaximumWhileUndecidedOrUntilStopped) {
  Source a{10, 0.5, std::mt19937_64(25)}, b{9.9, 0.5, std::mt19937_64(26)};
  auto c = interleaved_compare(std::ref(a), std::ref(b), 50, never);
  EXPECT_EQ(c.runs, 50u);
  Source x{10, 0.5, std::mt19937_64(27)}, y{9.9, 0.5, std::mt19937_64(28)};
  auto stopped = interleaved_compare(std::ref(x), std::ref(y), 50, [](auto const& sa, auto const&) { return sa.size() >= 10; });
  EXPECT_EQ(stopped.runs, 10u);
  EXPECT_EQ(y.runs, 10u);
}

TEST(InterleavedCompare, EarlyLooksDoNotMakeEqualGraphsFaster) {
  int faster = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    Source a{10, 0.5, std::mt19937_64(seed)}, b{10, 0.5, std::mt19937_64(seed + 1000)};
    faster += interleaved_compare(std::ref(a), std::ref(b), 50, never).faster;
  }
  EXPECT_LE(faster, 2);  // as the full test alone: about 1 in 700
}

/// A machine whose speed moves between blocks: each call (one block of runs) draws the level
/// it runs at, and the runs inside the block scatter little around it. Both sources share it.
struct DriftingMachine {
  std::mt19937_64 rng;
  double level_spread, run_spread;
  std::vector<double> block(double center, std::size_t n) {
    double level = std::normal_distribution<double>(1.0, level_spread)(rng);
    std::normal_distribution<double> run(center * level, center * run_spread);
    std::vector<double> v;
    for (std::size_t i = 0; i < n; ++i) v.push_back(run(rng));
    return v;
  }
};

/// In how many of `trials` drifting machines (3% between blocks, 0.3% inside one) a graph
/// whose runs centre on `b` is called faster than one centred on `a`.
int faster_on_drifting_machines(double a_center, double b_center, std::uint64_t trials) {
  int faster = 0;
  for (std::uint64_t seed = 0; seed < trials; ++seed) {
    DriftingMachine m{std::mt19937_64(seed), 0.03, 0.003};
    auto a = [&](std::size_t n) { return m.block(a_center, n); };
    auto b = [&](std::size_t n) { return m.block(b_center, n); };
    faster += interleaved_compare(a, b, 50, never).faster;
  }
  return faster;
}

TEST(InterleavedCompare, DriftBetweenBlocksIsNotAGain) {
  // Equal graphs on a machine whose speed moves 3% between blocks while runs inside a block
  // agree to 0.3%: the samples pooled look certain, and one pair of blocks that straddles a
  // change read as "faster beyond noise". The spread between pairs of blocks must decide.
  EXPECT_LE(faster_on_drifting_machines(10, 10, 200), 2);
  // The same machine still shows a real 10% gain.
  EXPECT_GE(faster_on_drifting_machines(10, 9, 20), 18);
}

TEST(InterleavedCompare, AScreeningComparisonDropsAChallengerBehindAfterOnePair) {
  Source a{10, 0.5, std::mt19937_64(35)}, b{10.5, 0.5, std::mt19937_64(36)};
  auto c = interleaved_compare(std::ref(a), std::ref(b), 50, never, 5, CompareOptions{.screen = true});
  EXPECT_TRUE(c.screened_out);
  EXPECT_FALSE(c.faster);
  EXPECT_EQ(c.runs, 5u);
  EXPECT_EQ(b.runs, 5u);
  // Without screening, the same challenger is timed until the verdict settles.
  Source x{10, 0.5, std::mt19937_64(35)}, y{10.5, 0.5, std::mt19937_64(36)};
  auto full = interleaved_compare(std::ref(x), std::ref(y), 50, never);
  EXPECT_FALSE(full.screened_out);
  EXPECT_GT(full.runs, 5u);
  // A challenger ahead in the first pair goes on to the full decision.
  Source p{10, 0.1, std::mt19937_64(37)}, q{8, 0.1, std::mt19937_64(38)};
  auto ahead = interleaved_compare(std::ref(p), std::ref(q), 50, never, 5, CompareOptions{.screen = true});
  EXPECT_FALSE(ahead.screened_out);
  EXPECT_TRUE(ahead.faster);
  EXPECT_EQ(ahead.runs, 15u);
}

TEST(InterleavedCompare, ScreeningKeepsARealGainOnADriftingMachine) {
  // The drifting machine of DriftBetweenBlocksIsNotAGain (3% between blocks): a 10% gain
  // still loses its first pair of blocks only when the machine slowed by 10% between them.
  int faster = 0, screened_out = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    DriftingMachine m{std::mt19937_64(seed), 0.03, 0.003};
    auto a = [&](std::size_t n) { return m.block(10, n); };
    auto b = [&](std::size_t n) { return m.block(9, n); };
    auto c = interleaved_compare(a, b, 50, never, 5, CompareOptions{.screen = true});
    faster += c.faster;
    screened_out += c.screened_out;
  }
  EXPECT_GE(faster, 18);
  EXPECT_LE(screened_out, 1);
}

/// A machine whose speed walks: every run moves it by 1% (kept within 0.7-1.4 of nominal), and
/// each run scatters 2% around it. Both graphs run on the one machine.
struct WalkingMachine {
  std::mt19937_64 rng;
  double level = 1;
  std::vector<double> runs(double center, std::size_t n) {
    std::vector<double> v;
    for (std::size_t i = 0; i < n; ++i) {
      level = std::clamp(level + std::normal_distribution<double>(0, 0.01)(rng), 0.7, 1.4);
      v.push_back(center * level * (1 + std::normal_distribution<double>(0, 0.02)(rng)));
    }
    return v;
  }
};

/// In how many of `trials` walking machines a graph centred on `b` is called faster than one
/// centred on `a`, in blocks of `block` runs with the first look after 5 a side; and the mean
/// runs a side it took.
std::pair<int, double> faster_on_walking_machines(double a_center, double b_center, std::size_t block, std::uint64_t trials) {
  int faster = 0;
  double runs = 0;
  for (std::uint64_t seed = 0; seed < trials; ++seed) {
    WalkingMachine m{std::mt19937_64(seed)};
    auto a = [&](std::size_t n) { return m.runs(a_center, n); };
    auto b = [&](std::size_t n) { return m.runs(b_center, n); };
    auto c = interleaved_compare(a, b, 50, never, block, CompareOptions{.min_runs = 5});
    faster += c.faster;
    runs += static_cast<double>(c.runs) / static_cast<double>(trials);
  }
  return {faster, runs};
}

TEST(InterleavedCompare, BlocksOfOneRunDecideSoonerWhereTheSpeedWalks) {
  // Runs a run apart see nearly the same machine; blocks of 5 compare runs up to 9 runs apart.
  auto [one, one_runs] = faster_on_walking_machines(10, 9.5, 1, 200);
  auto [five, five_runs] = faster_on_walking_machines(10, 9.5, 5, 200);
  EXPECT_GE(one, 185);  // a 5% gain: 97% of trials (2,000 trials: 1,947)
  EXPECT_LT(five, one);
  EXPECT_LT(one_runs, five_runs);
  EXPECT_LE(faster_on_walking_machines(10, 10, 1, 200).first, 2);  // equal graphs: 0.15% (2,000 trials: 3)
}

TEST(InterleavedCompare, TheFirstLookWaitsForItsRuns) {
  // Blocks of one run, the first look after 5 a side: a challenger 5x faster is not called
  // faster (nor screened) before it has 5 runs.
  Source a{10, 0.1, std::mt19937_64(39)}, b{2, 0.1, std::mt19937_64(40)};
  auto c = interleaved_compare(std::ref(a), std::ref(b), 50, never, 1, CompareOptions{.screen = true, .min_runs = 5});
  EXPECT_TRUE(c.faster);
  EXPECT_EQ(c.runs, 5u);
  Source x{10, 0.1, std::mt19937_64(41)}, y{12, 0.1, std::mt19937_64(42)};
  auto behind = interleaved_compare(std::ref(x), std::ref(y), 50, never, 1, CompareOptions{.screen = true, .min_runs = 5});
  EXPECT_TRUE(behind.screened_out);
  EXPECT_EQ(behind.runs, 5u);
}

TEST(InterleavedCompare, ABudgetOfOneBlockStillComparesSeveralPairs) {
  // Five runs a side: blocks of one run, five pairs, so a clear gain can still be shown.
  Source a{10, 0.1, std::mt19937_64(31)}, b{8, 0.1, std::mt19937_64(32)};
  auto c = interleaved_compare(std::ref(a), std::ref(b), 5, never);
  EXPECT_TRUE(c.faster);
  EXPECT_GE(c.runs, 3u);  // three pairs of one run each at the least
  EXPECT_LE(c.runs, 5u);
  // A comparison stopped after one pair (a deadline) cannot call anything faster.
  Source x{10, 0.1, std::mt19937_64(33)}, y{5, 0.1, std::mt19937_64(34)};
  auto stopped = interleaved_compare(std::ref(x), std::ref(y), 50, [](auto const&, auto const&) { return true; });
  EXPECT_FALSE(stopped.faster);
  EXPECT_EQ(stopped.runs, 5u);
}

TEST(StudentT, QuantilesWithTheTailOfThreeStandardErrors) {
  EXPECT_NEAR(detail::student_t_like_z(3, 2), 19.207, 0.01);
  EXPECT_NEAR(detail::student_t_like_z(3, 9), 4.094, 0.01);
  EXPECT_NEAR(detail::student_t_like_z(3, 1000), 3.008, 0.01);
  EXPECT_NEAR(detail::student_t_central(1.0, 1), 0.5, 1e-9);  // Cauchy: P(|T| < 1) = 1/2
}

}  // namespace
}  // namespace autograph
