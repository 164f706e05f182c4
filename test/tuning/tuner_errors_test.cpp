// The tuner on a 3x3 space: it stops when every valid point is measured; an empty space, an
// invalid default, a bad weight, a budget too small or a bad measurement are refused, naming
// the kernel and the problem.
#include <autograph/tuning/tuner.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "tuning/tiny_kernel.hpp"

namespace autograph::tuning {
namespace {

using testing::TinyKernel;
// One factory type, so tune<TinyKernel> is compiled once in this file.
using TinyMeasureFactory = std::function<std::function<double(TinyKernel::Config const&)>(TinyKernel::Problem const&)>;

TinyMeasureFactory const tiny_measure = [](TinyKernel::Problem const&) { return [](TinyKernel::Config const& c) { return TinyKernel::latency(c); }; };

std::string error_of(auto&& f) {
  try {
    f();
  } catch (Error const& e) {
    return e.what();
  }
  return "no error";
}

TEST(Tuner, StopsWhenEveryValidConfigurationIsMeasured) {
  std::size_t calls = 0;
  TinyMeasureFactory make = [&](TinyKernel::Problem const&) { return [&](TinyKernel::Config const& c) { return ++calls, TinyKernel::latency(c); }; };
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
            "tuning tiny [3x3]: weight 0.000000 (must be positive and finite)");
  EXPECT_EQ(error_of([&] { tune<TinyKernel>({{TinyKernel::Problem{}, 1.0, -1.0}}, 10, tiny_measure); }),
            "tuning tiny [3x3]: latency target -1.000000 s (must be positive and finite)");
  TinyMeasureFactory nan_measure = [](TinyKernel::Problem const&) { return [](TinyKernel::Config const&) { return std::nan(""); }; };
  EXPECT_EQ(error_of([&] { tune<TinyKernel>({{TinyKernel::Problem{}}}, 10, nan_measure); }),
            "tuning tiny [3x3]: measuring a0 b0 gave nan s (must be positive and finite)");
  TinyMeasureFactory failing = [](TinyKernel::Problem const&) {
    return [](TinyKernel::Config const& c) -> double {
      if (c.a == 0 && c.b == 0) return 1e-3;
      throw Error("kernel launch failed");
    };
  };
  auto e = error_of([&] { tune<TinyKernel>({{TinyKernel::Problem{}}}, 10, failing); });  // which point fails first is the sampler's
  EXPECT_TRUE(e.starts_with("tuning tiny [3x3]: measuring a") && e.ends_with(" failed: kernel launch failed")) << e;

}

}  // namespace
}  // namespace autograph::tuning
