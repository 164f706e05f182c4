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
  // Kernels are timed as the model runs them: channels-last between neighbours that keep it.
  EXPECT_NE(meta["method"].get<std::string>().find("inputs channels-last where the kernel takes them"), std::string::npos) << meta["method"];
  auto plain = nlohmann::json::parse(profile(g, cpu, {.boundary = {}}).to_json())["measured"]["method"].get<std::string>();
  EXPECT_NE(plain.find("inputs plain, outputs plain"), std::string::npos) << plain;
}

// A profiled copy reads the model's weights as weights (constants a runtime prepares once),
// its activations as graph inputs.
TEST(CpuProfiler, TheCopiesReadTheModelsWeightsAsWeights) {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 8, 16, 16});
  Graph<> g = std::move(b).build({b.conv2d(x, 4, {3, 3})});
  NodeId conv = g.outputs()[0].node;
  auto in = input_descs(g, conv);
  std::vector<char> constant;
  for (Value v : g[conv].inputs) constant.push_back(g[v.node].op.is<Weight>());
  ASSERT_EQ(constant, (std::vector<char>{0, 1}));
  Graph<> h = copies_graph<BuiltinOps>(g[conv].op, in, 3, constant);
  std::size_t inputs = 0, weights = 0, convs = 0;
  for (NodeId id : h.node_ids()) {
    inputs += h[id].op.is<Input>();
    weights += h[id].op.is<Weight>();
    convs += h[id].op.is<Conv2D>();
  }
  EXPECT_EQ(inputs, 1u);
  EXPECT_EQ(weights, 1u);
  EXPECT_EQ(convs, 3u);
  EXPECT_EQ(h.outputs().size(), 3u);
  Graph<> all_inputs = copies_graph<BuiltinOps>(g[conv].op, in, 3);  // no flags: every input a graph input (the CUDA profiler's)
  EXPECT_EQ(all_inputs.inputs().size(), 2u);
}

}  // namespace
}  // namespace autograph::cpu
