// Random annotation and the search's moves: uniform over the valid points, never an invalid
// one measured, every proposal new.
#include <autograph/tuning/tuner.hpp>
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "tuning/synthetic_tuner.hpp"
#include "tuning/tiny_kernel.hpp"

namespace autograph::tuning {
namespace {

using testing::SyntheticMatmul;
using testing::TinyKernel;

TEST(RandomAnnotation, SamplesTheValidPointsUniformly) {
  TinyKernel::Problem p;
  auto knobs = TinyKernel::knobs(p);
  std::mt19937_64 rng(3);
  std::map<Choice, int> count;
  for (int i = 0; i < 5000; ++i) ++count[*sample_valid<TinyKernel>(p, knobs, rng)];
  ASSERT_EQ(count.size(), 5u);  // (0,0) (0,2) (1,1) (2,0) (2,2): never an invalid one
  for (auto const& [c, n] : count) {
    EXPECT_TRUE(TinyKernel::is_valid(p, TinyKernel::config(p, c)));
    EXPECT_NEAR(n, 1000, 150);  // binomial(5000, 1/5): standard deviation 28
  }
}

TEST(RandomAnnotation, MutationChangesOneKnobAndCrossoverTakesEachKnobFromAParent) {
  SyntheticMatmul::Problem p;
  auto knobs = SyntheticMatmul::knobs(p);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200; ++i) {
    Choice a = random_choice(knobs, rng), b = random_choice(knobs, rng);
    Choice m = mutate(knobs, a, rng);
    std::size_t changed = 0;
    for (std::size_t k = 0; k < a.size(); ++k) changed += m[k] != a[k];
    EXPECT_EQ(changed, 1u);
    Choice x = crossover(a, b, rng);
    for (std::size_t k = 0; k < a.size(); ++k) EXPECT_TRUE(x[k] == a[k] || x[k] == b[k]);
  }
}

TEST(RandomAnnotation, FindsTheGridPointOfAConfigurationWhenThereIsOne) {
  TinyKernel::Problem p;
  auto knobs = TinyKernel::knobs(p);
  EXPECT_EQ(find_choice<TinyKernel>(p, knobs, {2, 0}), (Choice{2, 0}));
  EXPECT_EQ(find_choice<TinyKernel>(p, knobs, {5, 0}), std::nullopt);          // off the grid
  EXPECT_EQ(find_choice<TinyKernel>(p, knobs, {2, 0}, 8), std::nullopt);       // 9 points: more than it may enumerate
}

TEST(Tuner, NeverMeasuresAnInvalidConfigurationNorOneTwice) {
  SyntheticMatmul::Problem p;
  std::size_t calls = 0, invalid = 0;
  std::set<std::string> seen;
  std::size_t repeated = 0;
  auto make = [&](SyntheticMatmul::Problem const& q) -> testing::SyntheticMeasure {
    return [&, q](SyntheticMatmul::Config const& c) {
      ++calls;
      invalid += !SyntheticMatmul::is_valid(q, c);
      repeated += !seen.insert(SyntheticMatmul::to_string(c)).second;
      return SyntheticMatmul::latency(q, c);
    };
  };
  auto r = testing::tune_synthetic({{p}}, 120, make, {.seed = 9});
  EXPECT_EQ(calls, 120u);
  EXPECT_EQ(r[0].trials, 120u);
  EXPECT_EQ(invalid, 0u);
  EXPECT_EQ(repeated, 0u);
}

}  // namespace
}  // namespace autograph::tuning
