// The optimizer on a runtime whose comparisons screen (PairedScreeningRuntime): each candidate
// is measured paired with the best graph so far, never alone against the best's latency
// timed earlier (scripted_runtime.hpp).
#include <gtest/gtest.h>

#include "chains_testing.hpp"
#include "scripted_runtime.hpp"

namespace autograph {
namespace paired_screening_test {

using toy::conv_relu_chain;
using toy::PairedScriptedOptimizer;
using toy::PairedScriptedRuntime;

TEST(OptimizerOnAPairedScreeningRuntime, MeasuresEveryCandidatePairedWithTheBestSoFar) {
  Graph<> g = conv_relu_chain();
  PairedScriptedRuntime rt;
  auto r = PairedScriptedOptimizer(rt, {.partition = false}).optimize(g);
  EXPECT_EQ(r.rewrites["fuse-conv-relu"], 3u);
  EXPECT_TRUE(rt.log->bounds.empty()) << "no candidate was screened alone against a latency timed before";
  auto const& compared = *rt.compared;
  ASSERT_FALSE(compared.empty());
  EXPECT_EQ(compared.front().incumbent_nodes, g.num_nodes());  // the input is the best before any candidate
  std::size_t best = g.num_nodes();
  for (auto const& c : compared) {
    EXPECT_TRUE(c.screen);
    EXPECT_EQ(c.incumbent_nodes, best) << "each candidate is compared with the best graph at the time";
    if (c.challenger_nodes < best) best = c.challenger_nodes;  // the scripted runtime calls fewer nodes faster
  }
  EXPECT_EQ(best, r.graph.num_nodes());
  EXPECT_EQ(r.latency_ms, static_cast<double>(r.graph.num_nodes()));
  EXPECT_EQ(r.comparisons, compared.size());
}

TEST(OptimizerOnAPairedScreeningRuntime, KeepsNothingThePairedRunsDoNotShowFaster) {
  Graph<> g = conv_relu_chain();
  PairedScriptedRuntime rt;
  rt.script = PairedScriptedRuntime::Script::only_noise;
  auto r = PairedScriptedOptimizer(rt, {.partition = false}).optimize(g);
  EXPECT_TRUE(r.rewrites.empty());
  EXPECT_EQ(r.graph.num_nodes(), g.num_nodes());
  EXPECT_FALSE(rt.compared->empty());
}

TEST(OptimizerOnAPairedScreeningRuntime, ACandidateThatCannotRunIsSlowNotFatal) {
  Graph<> g = conv_relu_chain();
  PairedScriptedRuntime rt;
  rt.script = PairedScriptedRuntime::Script::candidates_fail;
  auto r = PairedScriptedOptimizer(rt, {.partition = false}).optimize(g);
  EXPECT_TRUE(r.rewrites.empty());
  ASSERT_FALSE(r.failures.empty());
  EXPECT_NE(r.failures[0].find("unsupported on the scripted runtime"), std::string::npos) << r.failures[0];
  EXPECT_EQ(r.latency_ms, static_cast<double>(g.num_nodes()));
}

TEST(OptimizerOnAPairedScreeningRuntime, LeavesOutARuleSlowerInRunsPairedWithTheGraphItCameFrom) {
  // The input was timed alone in a slow stretch, twice its paired latency: set beside that
  // figure, the fused candidate looked faster than the graph it came from, so the rule was
  // never checked. Paired with it, it is slower, and the rule's probe (timed paired too, never
  // alone) is slower beyond noise: the rule is left out.
  Graph<> g = conv_relu_chain();
  PairedScriptedRuntime rt;
  rt.fusion_slows_after_a_slow_start = true;
  auto r = PairedScriptedOptimizer(rt, {.partition = false}).optimize(g);
  EXPECT_TRUE(r.rewrites.empty());
  EXPECT_EQ(r.graph.num_nodes(), g.num_nodes());
  EXPECT_EQ(r.left_out, std::vector<std::string>{"fuse-conv-relu"});
  EXPECT_EQ(rt.log->measures, 1) << "only the input is timed alone";
}

}  // namespace paired_screening_test
}  // namespace autograph
