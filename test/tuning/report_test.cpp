// The tuner's text for the command line: a progress line per round and the results table with
// the weighted totals.
#include <autograph/tuning/report.hpp>
#include <gtest/gtest.h>

#include "tuning/tiny_kernel.hpp"

namespace autograph::tuning {
namespace {

using testing::TinyKernel;

TEST(TuneReport, ProgressLineNamesTheProblemTrialsAndSpeedup) {
  TuneProgress p{.kernel = "attention", .signature = "b1 h8 s1050 d32", .task = 0, .tasks = 2, .task_trials = 48, .trials = 96, .budget = 400,
                 .best_latency_s = 0.412e-3, .default_latency_s = 1.37e-3};
  EXPECT_EQ(format_progress(p), "attention [b1 h8 s1050 d32] 1/2: 48 trials (96/400), best 0.412 ms, default 1.370 ms (x3.33)");
}

TEST(TuneReport, ResultsTableEndsWithTheWeightedTotals) {
  std::vector<TuneResult<TinyKernel>> r{{"3x3", 2, 5, 0, {0, 0}, 1e-3, {2, 2}, 5e-3, {}, TaskStop::exhausted, "every valid configuration measured"},
                                        {"other", 1, 9, 4, {1, 1}, 3e-3, {2, 2}, 6e-3, {}, TaskStop::budget, "trial budget spent"}};
  auto text = format_results<TinyKernel>(r);
  EXPECT_NE(text.find("3x3                                   2       5.0000       1.0000    5.00x       5       0  every valid configuration measured\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("weighted total (sum of weight x latency): 16.0000 ms -> 5.0000 ms (x3.20)\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace autograph::tuning
