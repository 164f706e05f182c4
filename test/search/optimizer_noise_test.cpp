// The optimizer's decisions on a runtime that measures (ComparingRuntime, runtime/noise.hpp):
// a candidate that looks faster once is kept only when the interleaved re-measurement agrees,
// and a candidate that cannot run is slow, not the end of the search. A scripted runtime
// stands in for the CPU: latency = node count, compare() says what the test wants.
#include <gtest/gtest.h>

#include <memory>

#include "autograph/cost/roofline.hpp"
#include "autograph/rules/library/fusion.hpp"
#include "autograph/search/optimizer.hpp"
#include "chains_testing.hpp"

namespace autograph {
namespace {

struct ScriptedRuntime {
  enum class Script { real_gains, only_noise, candidates_fail };
  explicit ScriptedRuntime(Script s = Script::real_gains)
      : improvements_are_noise(s == Script::only_noise), candidates_fail(s == Script::candidates_fail) {}

  bool improvements_are_noise;  // compare() finds no real difference
  bool candidates_fail;         // measure() throws for every graph after the input
  std::shared_ptr<int> measures = std::make_shared<int>(0);
  RooflineCost cost{devices::H100::spec};

  double measure(Graph<> const& g) {
    if (candidates_fail && (*measures)++ > 0) throw ExecutionError("Conv2D 'c1': unsupported on the scripted runtime: a fused activation");
    return static_cast<double>(g.num_nodes());
  }
  std::string kind() const { return "scripted"; }
  RooflineCost const& cost_model() const { return cost; }
  Comparison compare(Graph<> const& incumbent, Graph<> const& challenger) {
    double a = static_cast<double>(incumbent.num_nodes()), b = static_cast<double>(challenger.num_nodes());
    return {a, b, 0.0, !improvements_are_noise && b < a};
  }
};
static_assert(ComparingRuntime<ScriptedRuntime>);

using ScriptedOptimizer = Optimizer<Graph<>, rules::Rules<rules::FuseConvRelu>, SumCost, ScriptedRuntime>;

using toy::conv_relu_chain;

TEST(OptimizerOnAMeasuringRuntime, KeepsImprovementsTheReMeasurementConfirms) {
  Graph<> g = conv_relu_chain();
  auto r = ScriptedOptimizer(ScriptedRuntime(), {.partition = false}).optimize(g);
  EXPECT_EQ(r.rewrites["fuse-conv-relu"], 3u);
  EXPECT_GT(r.comparisons, 0u);
  EXPECT_TRUE(r.failures.empty());
}

TEST(OptimizerOnAMeasuringRuntime, DoesNotKeepWhatWasOnlyNoise) {
  // Every candidate measures faster once (fewer nodes), but re-measured against the best it
  // is no faster beyond the noise margin: nothing is kept.
  Graph<> g = conv_relu_chain();
  auto r = ScriptedOptimizer(ScriptedRuntime(ScriptedRuntime::Script::only_noise), {.partition = false}).optimize(g);
  EXPECT_TRUE(r.rewrites.empty());
  EXPECT_EQ(r.graph.num_nodes(), g.num_nodes());
  EXPECT_GT(r.comparisons, 0u);
}

TEST(OptimizerOnAMeasuringRuntime, ACandidateThatCannotRunIsSlowNotFatal) {
  Graph<> g = conv_relu_chain();
  auto r = ScriptedOptimizer(ScriptedRuntime(ScriptedRuntime::Script::candidates_fail), {.partition = false}).optimize(g);
  EXPECT_TRUE(r.rewrites.empty());
  ASSERT_FALSE(r.failures.empty());
  EXPECT_NE(r.failures[0].find("unsupported on the scripted runtime"), std::string::npos) << r.failures[0];
  EXPECT_EQ(r.latency_ms, static_cast<double>(g.num_nodes()));
}

}  // namespace
}  // namespace autograph
