// The optimizer on a runtime that measures: improvements must survive re-measurement, and a
// candidate that cannot run is slow, not the end of the search (scripted_runtime.hpp).
#include <gtest/gtest.h>

#include "chains_testing.hpp"
#include "scripted_runtime.hpp"

namespace autograph {
namespace {

using toy::conv_relu_chain;
using toy::ScriptedOptimizer;
using toy::ScriptedRuntime;

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
  auto r = ScriptedOptimizer(ScriptedRuntime{.script = ScriptedRuntime::Script::only_noise}, {.partition = false}).optimize(g);
  EXPECT_TRUE(r.rewrites.empty());
  EXPECT_EQ(r.graph.num_nodes(), g.num_nodes());
  EXPECT_GT(r.comparisons, 0u);
}

TEST(OptimizerOnAMeasuringRuntime, ACandidateThatCannotRunIsSlowNotFatal) {
  Graph<> g = conv_relu_chain();
  auto r = ScriptedOptimizer(ScriptedRuntime{.script = ScriptedRuntime::Script::candidates_fail}, {.partition = false}).optimize(g);
  EXPECT_TRUE(r.rewrites.empty());
  ASSERT_FALSE(r.failures.empty());
  EXPECT_NE(r.failures[0].find("unsupported on the scripted runtime"), std::string::npos) << r.failures[0];
  EXPECT_EQ(r.latency_ms, static_cast<double>(g.num_nodes()));
}

}  // namespace
}  // namespace autograph
