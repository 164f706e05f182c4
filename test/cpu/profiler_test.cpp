// The CPU profiler: one measured entry per distinct kernel signature, written as the cost
// table the cost models read, found by the CPU runtime's own cost model.
#include <gtest/gtest.h>

#include "autograph/cpu/profiler.hpp"
#include "autograph/graph/builder.hpp"

namespace autograph::cpu {
namespace {

TEST(CpuProfiler, MeasuresEachDistinctSignatureOnceAndTheCostModelReadsIt) {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 8, 16, 16});
  Value y = b.relu(b.conv2d(x, 8, {3, 3}, {.pad = Conv2D::same_pad(3, 3)}));
  Value z = b.relu(b.conv2d(y, 8, {3, 3}, {.pad = Conv2D::same_pad(3, 3)}));  // the same two signatures again
  Graph<> g = std::move(b).build({b.add(y, z)});
  CpuRuntime cpu({.cores = 1});
  auto r = profile(g, cpu);
  ASSERT_EQ(r.entries.size(), 3u);  // conv, relu, add
  std::size_t occurrences = 0;
  for (auto const& e : r.entries) {
    EXPECT_GE(e.us, 0.0) << e.signature;
    occurrences += e.occurrences;
  }
  EXPECT_EQ(occurrences, 5u);
  EXPECT_EQ(r.cpu, cpu_model_name());
  auto parsed = CostTable::parse(r.to_json(), "profile");
  cpu.set_cost_table(parsed);
  auto conv = std::ranges::find_if(r.entries, [](auto const& e) { return e.signature.starts_with("Conv2D"); });
  ASSERT_NE(conv, r.entries.end());
  // The runtime's cost model now answers the profiled convolution from the table.
  NodeId conv_node = g[y.node].inputs[0].node;
  auto cost = cpu.cost_model().estimate(g[conv_node].op, input_descs(g, conv_node), g[conv_node].outputs);
  EXPECT_DOUBLE_EQ(cost.us, conv->us);
  EXPECT_EQ(cpu.cost_model().measured_hits(), 1u);
}

TEST(CpuProfiler, RejectsFewerThanTwoCopies) {
  GraphBuilder<> b;
  Graph<> g = std::move(b).build({b.relu(b.input("x", {1, 4}))});
  CpuRuntime cpu;
  EXPECT_THROW(profile(g, cpu, {.copies = 1}), Error);
}

// The fastest-run statistic (ProfileOptions::fastest), for shared machines. Here rather than in
// a file of its own: instantiating profile() is most of this file's 15 s of compile time.
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
