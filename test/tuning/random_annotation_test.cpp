// Random annotation and the search's moves: uniform over the valid points, never an invalid
// one measured, every proposal new; an empty space or an invalid default is refused naming the
// kernel and the problem.
#include <autograph/tuning/tuner.hpp>
#include <gtest/gtest.h>

#include <map>

#include "tuning/synthetic_kernel.hpp"
#include "tuning/tiny_kernel.hpp"

namespace autograph::tuning {
namespace {

using testing::SyntheticMatmul;
using testing::TinyKernel;

auto tiny_measure = [](TinyKernel::Problem const&) { return [](TinyKernel::Config const& c) { return TinyKernel::latency(c); }; };

std::string error_of(auto&& f) {
  try {
    f();
  } catch (Error const& e) {
    return e.what();
  }
  return "no error";
}

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

TEST(Tuner, NeverMeasuresAnInvalidConfigurationNorOneTwice) {
  SyntheticMatmul::Problem p;
  std::size_t calls = 0, invalid = 0;
  std::set<std::string> seen;
  std::size_t repeated = 0;
  auto make = [&](SyntheticMatmul::Problem const& q) {
    return [&, q](SyntheticMatmul::Config const& c) {
      ++calls;
      invalid += !SyntheticMatmul::is_valid(q, c);
      repeated += !seen.insert(SyntheticMatmul::to_string(c)).second;
      return SyntheticMatmul::latency(q, c);
    };
  };
  auto r = tune<SyntheticMatmul>({{p}}, 120, make, {.seed = 9});
  EXPECT_EQ(calls, 120u);
  EXPECT_EQ(r[0].trials, 120u);
  EXPECT_EQ(invalid, 0u);
  EXPECT_EQ(repeated, 0u);
}

TEST(Tuner, StopsWhenEveryValidConfigurationIsMeasured) {
  std::size_t calls = 0;
  auto make = [&](TinyKernel::Problem const&) { return [&](TinyKernel::Config const& c) { return ++calls, TinyKernel::latency(c); }; };
  auto r = tune<TinyKernel>({{TinyKernel::Problem{}}}, 100, make);
  EXPECT_EQ(calls, 5u);  // the 5 valid points, the default (0,0) among them
  EXPECT_EQ(r[0].stop, TaskStop::exhausted);
  EXPECT_EQ(r[0].stop_reason, "every valid configuration measured");
  EXPECT_EQ(TinyKernel::to_string(r[0].best_config), "a0 b0");
  EXPECT_DOUBLE_EQ(r[0].best_latency_s, 1e-3);
}

TEST(Tuner, RefusesAnEmptySpaceOrAnInvalidDefaultNamingTheKernelAndProblem) {
  EXPECT_EQ(error_of([&] { tune<TinyKernel>({{TinyKernel::Problem{.no_knobs = true}}}, 10, tiny_measure); }),
            "tuning tiny [no knobs]: the kernel has no knobs for this problem (an empty space)");
  EXPECT_EQ(error_of([&] { tune<TinyKernel>({{TinyKernel::Problem{.empty_knob = true}}}, 10, tiny_measure); }),
            "tuning tiny [empty knob]: knob 'b' has no values (an empty space)");
  EXPECT_EQ(error_of([&] { tune<TinyKernel>({{TinyKernel::Problem{.invalid_default = true}}}, 10, tiny_measure); }),
            "tuning tiny [3x3]: the default configuration a0 b1 is not valid for it");
  EXPECT_EQ(error_of([&] { tune<TinyKernel>({}, 10, tiny_measure); }), "tuning tiny: no problems to tune");
  EXPECT_EQ(error_of([&] { tune<TinyKernel>({{TinyKernel::Problem{}}, {TinyKernel::Problem{}}}, 1, tiny_measure); }),
            "tuning tiny: a budget of 1 trials cannot measure the default configuration of 2 problems");
  EXPECT_EQ(error_of([&] { tune<TinyKernel>({{TinyKernel::Problem{}, 0.0}}, 10, tiny_measure); }),
            "task scheduler: task 0 has weight 0.000000 (must be positive and finite)");
  auto nan_measure = [](TinyKernel::Problem const&) { return [](TinyKernel::Config const&) { return std::nan(""); }; };
  EXPECT_EQ(error_of([&] { tune<TinyKernel>({{TinyKernel::Problem{}}}, 10, nan_measure); }),
            "tuning tiny [3x3]: measuring a0 b0 gave nan s (must be positive and finite)");
}

}  // namespace
}  // namespace autograph::tuning
