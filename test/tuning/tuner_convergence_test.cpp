// The tuner against random search on a synthetic kernel whose optimum is known (enumerated):
// within 5% of it in at most 200 trials, where random search, expecting about 1/(share of the
// points within 5%) trials, needs several times more. Fixed seeds, so the numbers are the same
// on every run; they print, so a change in either shows.
#include <autograph/tuning/tuner.hpp>
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>

#include "tuning/synthetic_tuner.hpp"

namespace autograph::tuning {
namespace {

using testing::SyntheticMatmul;

/// The first trial (1-based) after which the best latency is within `factor` of `optimum`.
std::optional<std::size_t> trials_to_reach(std::vector<double> const& curve, double optimum, double factor) {
  for (std::size_t i = 0; i < curve.size(); ++i)
    if (curve[i] <= optimum * factor) return i + 1;
  return std::nullopt;
}

/// The share of valid points within `factor` of the optimum.
double share_within(SyntheticMatmul::Problem const& p, double optimum, double factor) {
  auto knobs = SyntheticMatmul::knobs(p);
  std::size_t valid = 0, near = 0;
  Choice c(knobs.size(), 0);
  while (true) {
    auto cfg = SyntheticMatmul::config(p, c);
    if (SyntheticMatmul::is_valid(p, cfg)) ++valid, near += SyntheticMatmul::latency(p, cfg) <= optimum * factor;
    std::size_t i = 0;
    while (i < c.size() && ++c[i] == knobs[i].values.size()) c[i++] = 0;
    if (i == c.size()) break;
  }
  return static_cast<double>(near) / static_cast<double>(valid);
}

std::vector<double> run(SearchPolicy policy, std::uint64_t seed, std::size_t budget) {
  SyntheticMatmul::Problem p;
  TuneOptions o{.policy = policy, .seed = seed};
  o.scheduler.early_stopping = 0;  // one task: spend the whole budget
  auto r = testing::tune_synthetic({{p}}, budget, testing::synthetic_latency(), o);
  return r.at(0).best_so_far;
}

TEST(Tuner, ReachesWithinFivePercentOfTheOptimumIn200TrialsWhereRandomSearchNeedsManyMore) {
  SyntheticMatmul::Problem p;
  double optimum = SyntheticMatmul::optimum(p);
  double share = share_within(p, optimum, 1.05);
  double random_expected = 1 / share;  // trials random search needs on average (geometric distribution)
  std::printf("optimum %.6f s; %.3f%% of the valid points within 5%%: random search needs %.0f trials on average\n", optimum, 100 * share,
              random_expected);
  std::size_t tuner_total = 0, random_reached = 0;
  for (std::uint64_t seed : {1, 2, 3}) {
    auto tuned = run(SearchPolicy::evolutionary, seed, 200);
    auto random = run(SearchPolicy::random, seed, 200);
    auto t = trials_to_reach(tuned, optimum, 1.05), r = trials_to_reach(random, optimum, 1.05);
    std::printf("seed %llu: tuner within 5%% after %s trials (best %.4fx the optimum); random search: %s (best %.4fx)\n",
                static_cast<unsigned long long>(seed), t ? std::to_string(*t).c_str() : "no", tuned.back() / optimum,
                r ? std::to_string(*r).c_str() : "not in 200", random.back() / optimum);
    ASSERT_TRUE(t) << "seed " << seed << ": the tuner ended at " << tuned.back() / optimum << "x the optimum";
    tuner_total += *t;
    random_reached += r.has_value();
  }
  // The tuner's mean is a fraction of what random search expects, and random search with the
  // same budget and seeds mostly falls short.
  EXPECT_LT(static_cast<double>(tuner_total) / 3, random_expected / 3);
  EXPECT_LE(random_reached, 1u);
}

}  // namespace
}  // namespace autograph::tuning
