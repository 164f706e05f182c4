// AutoGraph's search on the placing runtime: Optimizer<..., PlacingCpuRuntime<AllBackends>>
// measures every candidate placed, its result runs like the reference, and
// run_placed_baselines (what `autograph optimize --backends` prints) reports which backend runs
// each node.
#include <gtest/gtest.h>

#include <filesystem>

#include <autograph/cpu/backends/placed_baselines.hpp>
#include <autograph/graph/builder.hpp>
#include <autograph/graph/stats.hpp>
#include <autograph/graph/weight_only.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/runtime/reference_executor.hpp>

#include "../cpu/matches_reference.hpp"
#include "scratch.hpp"

namespace autograph::cpu {
namespace {
using testing::fresh_db;

/// Two convolutions of one input, each with its Relu, concatenated: AutoGraph's rules merge
/// the convolutions (one wider conv, then a split), and oneDNN, BLAS and our kernels all run
/// some of its groups.
Graph<> branches() {
  GraphBuilder b;
  auto x = b.input("x", {1, 8, 12, 12});
  auto l = b.relu(b.conv2d(x, 8, {1, 1}));
  auto r = b.relu(b.conv2d(x, 8, {1, 1}));
  auto g = std::move(b).build({b.sigmoid(b.concat({l, r}, 1))});
  fill_random_weights(g, 7);
  return g;
}

TEST(PlacedOptimizer, SearchesOnPlacedMeasurementsAndItsResultRunsLikeTheReference) {
  Graph<> g = branches();
  PlacingCpuRuntime<AllBackends> rt({.warmup = 1, .budget_ms = 5}, {.database = fresh_db("optimizer.json"), .group_budget_ms = 2});
  Optimizer<Graph<>, rules::Default, MixedCriticalPath<0.25>, PlacingCpuRuntime<AllBackends>> opt(
      rt, {.measure_rounds = 1, .time_limit_s = 10, .threads = 1});
  auto best = opt.optimize(g);
  EXPECT_GT(best.latency_ms, 0);
  for (auto const& why : best.failures) ADD_FAILURE() << "a candidate failed to place or run: " << why;
  EXPECT_GE(opt.runtime().graphs_placed(), 1u);  // copies share the memo: the optimizer's runtime is `rt`'s copy
  EXPECT_GT(rt.graphs_placed(), 0u);
  auto const& placed = opt.runtime().placed(best.graph);
  std::vector<Tensor> in{Tensor::random({1, 8, 12, 12}, 11)};
  auto exe = opt.runtime().compile(best.graph, schedule::sequential(KernelDag(placed.graph)));
  EXPECT_TRUE(test::matches(exe.run(in), ReferenceExecutor<>().run(g, in), 1e-4));
}

TEST(PlacedOptimizer, BaselinesReportTheBackendOfEveryOperatorNode) {
  Graph<> g = branches();
  BaselineOptions bo;
  bo.time_limit_s = 5;
  PlacedBaselineReport report;
  auto results = run_placed_baselines(g, bo, {.warmup = 1, .budget_ms = 5}, {.database = fresh_db("baselines.json"), .group_budget_ms = 2}, {},
                                      &report);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].name, "placement");
  EXPECT_EQ(results[1].name, "autograph+placement");
  for (auto const& r : results) EXPECT_TRUE(r.verification.passed) << r.name << ": " << r.verification.why;
  auto check = [](Graph<> const& h, std::vector<std::string> const& by_node) {
    ASSERT_EQ(by_node.size(), h.id_bound());
    for (NodeId n : h.node_ids()) {
      if (is_operator_node(h, n) && !is_weight_only(h, n)) {
        EXPECT_FALSE(by_node[n].empty()) << h.label(n);
      }
    }
  };
  check(results[0].graph, report.placement_backends);
  check(results[1].graph, report.autograph_backends);
  EXPECT_GT(report.groups_measured, 0u);
  EXPECT_GE(report.database_entries, report.groups_measured);  // a fresh database: what this run measured, at least
  EXPECT_FALSE(report.autograph_plan.scheduled.policy.empty());
}

}  // namespace
}  // namespace autograph::cpu
