// PlacingCpuRuntime<Backends<...>>, the placement as a policy of the CPU runtime: the graph it
// measures is the op-level placement of the one it is given, gives the reference executor's
// outputs, says which backend runs each node, measures a group once across runs (the cost
// database), and rejects an unknown backend name with the known ones.
#include <gtest/gtest.h>

#include <filesystem>

#include <autograph/cpu/backends/placed_baselines.hpp>
#include <autograph/graph/builder.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/runtime/reference_executor.hpp>

#include "../cpu/matches_reference.hpp"
#include "scratch.hpp"

namespace autograph::cpu {
namespace {
using testing::fresh_db;
using testing::quick;

PlacingOptions quick_groups(std::filesystem::path db) { return {.database = std::move(db), .group_budget_ms = 2}; }

TEST(PlacingCpuRuntime, MeasuresThePlacedGraphWhichRunsLikeTheReference) {
  auto g = models::build("squeezenet1_1", {.resolution = 32, .weight_seed = 4});
  auto db = fresh_db("squeezenet.json");
  PlacingCpuRuntime<AllBackends> rt(quick(), quick_groups(db));
  double ms = rt.measure(g);
  EXPECT_GT(ms, 0);
  EXPECT_GT(rt.groups_measured(), 0u);
  EXPECT_EQ(rt.graphs_placed(), 1u);
  auto const& placed = rt.placed(g);
  EXPECT_EQ(rt.graphs_placed(), 1u);  // kept: placing `g` again places nothing
  EXPECT_NE(rt.kind().find("placed on onednn, blas, own"), std::string::npos) << rt.kind();
  std::vector<Tensor> in;
  for (NodeId n : g.inputs()) in.push_back(Tensor::random(g[n].outputs[0].shape, 3));
  auto exe = rt.compile(g, schedule::sequential(KernelDag(placed.graph)));
  EXPECT_TRUE(test::matches(exe.run(in), ReferenceExecutor<>().run(g, in), 1e-4));

  // A second runtime on the same database (the next run of a program) measures no group.
  PlacingCpuRuntime<AllBackends> again(quick(), quick_groups(db));
  EXPECT_GT(again.measure(g), 0);
  EXPECT_EQ(again.groups_measured(), 0u);
  EXPECT_DOUBLE_EQ(again.placed(g).placement.cost, placed.placement.cost);
}

TEST(PlacingCpuRuntime, AnOpWithSeveralOutputsStaysItselfWhateverOutputsAreRead) {
  // AutoGraph's merges leave Splits (conv/merged.split): a one-op group keeps the op, so the
  // runtime lowers it to views of its input, and each read output keeps its port.
  GraphBuilder b;
  auto x = b.input("x", {1, 8, 6, 6});
  auto parts = b.split(b.relu(x), 1, {2, 6});
  auto all = b.split(b.sigmoid(x), 1, {4, 4});
  auto g = std::move(b).build({b.tanh(parts[1]), b.add(all[0], all[1])});  // parts[0] is never read
  PlacingCpuRuntime<AllBackends> rt(quick(), quick_groups(fresh_db("split.json")));
  EXPECT_GT(rt.measure(g), 0);
  auto const& placed = rt.placed(g);
  std::size_t splits = 0;
  for (NodeId n : placed.graph.node_ids()) splits += placed.graph[n].is<Split>();
  EXPECT_EQ(splits, 2u);
  std::vector<Tensor> in{Tensor::random({1, 8, 6, 6}, 5)};
  auto exe = rt.compile(g, schedule::sequential(KernelDag(placed.graph)));
  EXPECT_TRUE(test::matches(exe.run(in), ReferenceExecutor<>().run(g, in), 1e-5));
}

TEST(PlacingCpuRuntime, NamesTheBackendOfEveryOperatorNode) {
  auto g = models::build("squeezenet1_1", {.resolution = 32});
  PlacingCpuRuntime<AllBackends> rt(quick(), quick_groups(fresh_db("names.json")));
  auto by_node = rt.node_backends(g);
  ASSERT_EQ(by_node.size(), g.id_bound());
  GraphFacts<BuiltinOps> facts(g);
  std::size_t named = 0;
  for (NodeId n : g.node_ids()) {
    if (facts.placed(n)) {
      EXPECT_TRUE(by_node[n] == "onednn" || by_node[n] == "blas" || by_node[n] == "own") << g.label(n) << ": '" << by_node[n] << "'";
      ++named;
    } else {
      EXPECT_EQ(by_node[n], "") << g.label(n);  // sources and constants are no backend's kernels
    }
  }
  EXPECT_EQ(named, facts.placed_nodes().size());
}

TEST(PlacingCpuRuntime, OnlyTheAllowedBackendsRunAndUnknownNamesAreRejected) {
  auto g = models::build("squeezenet1_1", {.resolution = 32});
  PlacingOptions only = quick_groups(fresh_db("only.json"));
  only.backends = {"onednn"};
  PlacingCpuRuntime<AllBackends> rt(quick(), only);
  for (auto const& b : rt.node_backends(g)) EXPECT_TRUE(b.empty() || b == "onednn") << b;
  EXPECT_NE(rt.kind().find("placed on onednn by"), std::string::npos) << rt.kind();
  PlacingOptions bad = quick_groups(fresh_db("bad.json"));
  bad.backends = {"onednn", "cudnn"};
  try {
    PlacingCpuRuntime<AllBackends> wrong(quick(), bad);
    FAIL() << "expected an Error";
  } catch (Error const& e) {
    EXPECT_STREQ(e.what(), "PlacingCpuRuntime: no backend called 'cudnn' (known: onednn, blas, own)");
  }
}

}  // namespace
}  // namespace autograph::cpu
