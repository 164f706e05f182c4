// The optimizer's time limit on a runtime whose measurements are slow (the CPU runtime: a
// candidate of Inception-v3 takes seconds): the limit is checked between measurements, not
// only between rounds, and the best verified graph so far is returned. A scripted runtime
// stands in: every measurement and comparison sleeps, latency = node count.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "autograph/cost/roofline.hpp"
#include "autograph/graph/builder.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/rules/library/fusion.hpp"
#include "autograph/search/optimizer.hpp"

namespace autograph {
namespace {

using Clock = std::chrono::steady_clock;

struct SlowRuntime {
  std::chrono::milliseconds per_measurement{60};
  std::shared_ptr<Clock::time_point> deadline = std::make_shared<Clock::time_point>(Clock::time_point::max());
  std::shared_ptr<int> deadlines_set = std::make_shared<int>(0);
  RooflineCost cost{devices::H100::spec};

  double measure(Graph<> const& g) {
    std::this_thread::sleep_for(per_measurement);
    return static_cast<double>(g.num_nodes());
  }
  std::string kind() const { return "scripted, slow"; }
  RooflineCost const& cost_model() const { return cost; }
  Comparison compare(Graph<> const& incumbent, Graph<> const& challenger) {
    std::this_thread::sleep_for(per_measurement);
    double a = static_cast<double>(incumbent.num_nodes()), b = static_cast<double>(challenger.num_nodes());
    return {a, b, 0.0, b < a, 5};
  }
  std::shared_ptr<Clock::time_point> first_deadline = std::make_shared<Clock::time_point>();
  void set_deadline(Clock::time_point t) {
    if (*deadlines_set == 0) *first_deadline = t;
    *deadline = t;
    ++*deadlines_set;
  }
};
static_assert(ComparingRuntime<SlowRuntime> && DeadlineRuntime<SlowRuntime>);

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

using SlowOptimizer = Optimizer<Graph<>, rules::Rules<rules::FuseConvRelu>, SumCost, SlowRuntime>;

TEST(OptimizerTimeLimit, HoldsWithinARoundsMeasurements) {
  Graph<> g = conv_relu_branches();
  SlowRuntime rt;
  // Without a limit, round 1 alone measures many candidates (each one measurement, the
  // improving ones also a comparison): well over the limit.
  auto unlimited = SlowOptimizer(rt, {.partition = false, .combine = false}).optimize(g);
  double one = rt.per_measurement.count() / 1000.0;
  ASSERT_GT(unlimited.measured, 5u);
  double limit = 3 * one;
  auto r = SlowOptimizer(rt, {.partition = false, .time_limit_s = limit, .combine = false}).optimize(g);
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
  SlowRuntime rt{.per_measurement = std::chrono::milliseconds(1)};
  auto before = Clock::now();
  SlowOptimizer(rt, {.partition = false, .time_limit_s = 30}).optimize(g);
  auto after = Clock::now();
  EXPECT_EQ(*rt.deadlines_set, 2);  // set, then lifted
  EXPECT_GE(*rt.first_deadline, before + std::chrono::seconds(30));
  EXPECT_LE(*rt.first_deadline, after + std::chrono::seconds(30));
  EXPECT_EQ(*rt.deadline, Clock::time_point::max());
}

}  // namespace
}  // namespace autograph
