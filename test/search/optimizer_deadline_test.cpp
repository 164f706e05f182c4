// The optimizer's time limit on a runtime whose measurements are slow (the CPU runtime: a
// candidate of Inception-v3 takes seconds): the limit is checked between measurements, not
// only between rounds, and the best verified graph so far is returned. A scripted runtime
// stands in: every measurement and comparison sleeps, latency = node count.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "autograph/graph/builder.hpp"
#include "autograph/graph/weights.hpp"
#include "scripted_runtime.hpp"

namespace autograph {
namespace {

using Clock = std::chrono::steady_clock;
using toy::ScriptedOptimizer;

/// A runtime whose every measurement and comparison takes 60 ms.
toy::ScriptedRuntime slow_runtime(std::chrono::milliseconds per_measurement = std::chrono::milliseconds(60)) {
  return toy::ScriptedRuntime{.per_measurement = per_measurement};
}

/// Conv+ReLU pairs on parallel branches: fusing any subset of them is a candidate.
Graph<> conv_relu_branches(int n = 8) {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 4, 8, 8});
  std::vector<Value> outs;
  for (int i = 0; i < n; ++i) outs.push_back(b.relu(b.conv2d(x, 4, {3, 3}, {.pad = Conv2D::same_pad(3, 3)})));
  Value sum = outs[0];
  for (int i = 1; i < n; ++i) sum = b.add(sum, outs[i]);
  Graph<> g = std::move(b).build({sum});
  fill_random_weights(g, 1);
  return g;
}

TEST(OptimizerTimeLimit, HoldsWithinARoundsMeasurements) {
  Graph<> g = conv_relu_branches();
  auto rt = slow_runtime();
  // Without a limit, round 1 alone measures many candidates (each one measurement, the
  // improving ones also a comparison): well over the limit.
  auto unlimited = ScriptedOptimizer(rt, {.partition = false, .combine = false}).optimize(g);
  double one = rt.per_measurement.count() / 1000.0;
  ASSERT_GT(unlimited.measured, 5u);
  double limit = 3 * one;
  auto r = ScriptedOptimizer(rt, {.partition = false, .time_limit_s = limit, .combine = false}).optimize(g);
  EXPECT_EQ(r.stop.reason, StopReason::time_limit) << r.stop.describe();
  EXPECT_EQ(r.stop.time_limit_s, limit);
  // Within the limit plus the measurement (and its comparison) running when it passed.
  EXPECT_LT(r.search_seconds, limit + 2 * one + 0.1) << r.measured << " measured";
  EXPECT_LT(r.measured, unlimited.measured);
  // What it found and verified so far is kept.
  EXPECT_LE(r.latency_ms, r.initial_latency_ms);
  EXPECT_EQ(r.latency_ms, static_cast<double>(r.graph.num_nodes()));
}

TEST(OptimizerTimeLimit, TellsTheRuntimeItsDeadlineAndLiftsItAfterwards) {
  Graph<> g = conv_relu_branches(2);
  auto rt = slow_runtime(std::chrono::milliseconds(1));
  auto before = Clock::now();
  ScriptedOptimizer(rt, {.partition = false, .time_limit_s = 30}).optimize(g);
  auto after = Clock::now();
  EXPECT_EQ(rt.log->deadlines_set, 2);  // set, then lifted
  EXPECT_GE(rt.log->first_deadline, before + std::chrono::seconds(30));
  EXPECT_LE(rt.log->first_deadline, after + std::chrono::seconds(30));
  EXPECT_EQ(rt.log->deadline, Clock::time_point::max());
}

}  // namespace
}  // namespace autograph
