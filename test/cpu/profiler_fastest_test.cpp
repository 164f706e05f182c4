// The profiler's fastest-run statistic (ProfileOptions::fastest), for shared machines.
#include <gtest/gtest.h>

#include "autograph/cpu/profiler.hpp"
#include "autograph/graph/builder.hpp"

namespace autograph::cpu {
namespace {

TEST(CpuProfiler, FastestRunsGiveTimesAndTheTableSaysSo) {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 8, 32, 32});
  Graph<> g = std::move(b).build({b.relu(b.conv2d(x, 8, {3, 3}))});
  CpuRuntime cpu({.budget_ms = 20, .cores = 1});
  auto r = profile(g, cpu, {.fastest = true});
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_TRUE(r.fastest);
  for (auto const& e : r.entries) EXPECT_TRUE(std::isfinite(e.us) && e.us >= 0) << e.signature;
  auto meta = nlohmann::json::parse(r.to_json())["measured"];
  EXPECT_NE(meta["method"].get<std::string>().find("each T the fastest of the runs"), std::string::npos) << meta["method"];
  EXPECT_NE(nlohmann::json::parse(profile(g, cpu).to_json())["measured"]["method"].get<std::string>().find("each T the median"), std::string::npos);
}

}  // namespace
}  // namespace autograph::cpu
