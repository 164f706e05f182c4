// `optimize --runtime cpu`: the schedule AutoGraph's graph runs with is chosen by measuring
// and reported with what choosing cost, and the time limit holds for a search measured on
// this machine.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "run_tool.hpp"

namespace {

using namespace autograph::testing;

TEST(CliCpuOptimize, ReportsTheScheduleChosenByMeasuringAndKeepsTheTimeLimit) {
  ScratchDir dir;
  double limit = 2;
  auto r = run_tool({"optimize", "--model", "squeezenet1_1", "--runtime", "cpu", "--configs", "autograph", "--time-limit", "2", "--report", "r.json"},
                    dir, 600);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.out.find("autograph runs with "), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(read_all(dir.path() / "r.json"));
  auto const& s = j["autograph_schedule"];
  auto chosen = s["chosen"].get<std::string>();
  EXPECT_TRUE(chosen == "greedy-per-core" || chosen == "sequential") << s;
  EXPECT_GT(s["chosen_ms"].get<double>(), 0.0) << s;
  if (!s["other"].is_null()) {  // the two schedules differed: both were measured
    EXPECT_NE(s["other"].get<std::string>(), chosen);
    EXPECT_GT(s["other_ms"].get<double>(), 0.0) << s;
  }
  // What choosing the schedules cost, beside the measuring time: where the schedules differ
  // the final graph is raced again (replan), at least one block each; the loser's runs are
  // part of the measuring.
  auto const& sc = j["schedule_choice"];
  EXPECT_GE(sc["raced"].get<std::size_t>(), s["other"].is_null() ? 0u : 1u) << sc;
  EXPECT_LE(sc["settled"].get<std::size_t>(), sc["raced"].get<std::size_t>()) << sc;
  EXPECT_GE(sc["losing_runs"].get<std::size_t>(), s["other"].is_null() ? 0u : 5u) << sc;
  EXPECT_LE(sc["losing_seconds"].get<double>(), j["measuring_seconds"].get<double>()) << sc;
  EXPECT_NE(r.out.find("the schedules not chosen ran "), std::string::npos) << r.out;
  auto const& c = j["configurations"][0];
  // The limit plus what was being measured when it passed: a SqueezeNet comparison on a loaded
  // machine takes well under 5 s (50 runs of ~10-25 ms per side at most).
  EXPECT_LT(c["search_seconds"].get<double>(), limit + 5) << c;
  EXPECT_TRUE(c["verification"]["passed"].get<bool>()) << c;
}

}  // namespace
