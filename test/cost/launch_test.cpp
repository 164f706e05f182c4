// Launch models of the simulated runtime (cost/launch.hpp): worked timelines with fixed kernel
// costs, replayed from a CUDA graph and issued one by one from the host.
#include <autograph/graph/builder.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <gtest/gtest.h>

namespace autograph {
namespace launch_test {

/// Fixed costs by op type: relu 10 us, sigmoid 6 us, anything else 1 us (1 us of it latency
/// for every kernel but the short ones, whose 0.5 us is).
struct FixedCosts {
  KernelCost relu{10, 0.3, 1}, sigmoid{6, 0.5, 1}, other{1, 0.1, 0.5};
  KernelCost estimate(AnyOp const& op, std::span<TensorDesc const>, std::span<TensorDesc const>) const {
    return op.is<Relu>() ? relu : op.is<Sigmoid>() ? sigmoid : other;
  }
  std::string describe() const { return "fixed costs"; }
};

using Graphed = SimulatedRuntime<devices::V100, schedule::Nimble, FixedCosts, launch::CudaGraph>;
using Hosted = SimulatedRuntime<devices::V100, schedule::Nimble, FixedCosts, launch::HostLaunched>;
constexpr double issue = devices::V100::spec.host_launch_us;
constexpr double graph_launch = devices::V100::spec.graph_launch_us;
constexpr double event = devices::V100::spec.event_us;
constexpr double sync = devices::V100::spec.host_sync_us;

static_assert(Runtime<Hosted>);
static_assert(std::same_as<SimulatedRuntime<devices::V100>::launch_model, launch::CudaGraph>);

TEST(LaunchModel, DeviceDescriptionsCarryTheHostLaunchCost) {
  for (DeviceSpec const& d : devices::all) {
    EXPECT_DOUBLE_EQ(d.host_launch_us, 3.8) << d.name;
    EXPECT_DOUBLE_EQ(d.host_sync_us, 2.9) << d.name;
  }
}

TEST(LaunchModel, TheKindSaysHowKernelsAreLaunched) {
  EXPECT_EQ(Graphed{}.kind(), "simulated (fixed costs)");
  EXPECT_EQ(Hosted{}.kind(), "simulated (fixed costs, host-launched)");
}

TEST(LaunchModel, AHostLaunchedKernelStartsNoEarlierThanItWasIssued) {
  GraphBuilder b;
  auto x = b.input("x", {1, 8});
  auto r = b.relu(x);
  auto s = b.sigmoid(r);
  auto g = std::move(b).build({s});
  Schedule one{{{{r.node, {}}, {s.node, {}}}}};
  // The graph: one launch, then 10 + 6 us. The host: relu issued at 3.8 us, ends at 13.8; the
  // sigmoid, issued at 7.6, waits for it and ends at 19.8. No graph launch.
  EXPECT_DOUBLE_EQ(Graphed{}.simulate(g, one).total_us, graph_launch + 16);
  EXPECT_DOUBLE_EQ(Hosted{}.simulate(g, one).total_us, issue + 16);
}

TEST(LaunchModel, ShortKernelsRunAtTheHostsPaceOnAnyNumberOfStreams) {
  GraphBuilder b;
  auto x = b.input("x", {1, 8});
  auto t = b.tanh(x);
  auto e = b.gelu(x);
  auto g = std::move(b).build({t, e});
  Schedule one{{{{t.node, {}}, {e.node, {}}}}};
  Schedule two{{{{t.node, {}}}, {{e.node, {}}}}};
  // 1 us kernels: the second is issued at 7.6 us and ends at 8.6 on one stream or two; two
  // streams are then joined by synchronizing the device.
  EXPECT_DOUBLE_EQ(Hosted{}.simulate(g, one).total_us, 2 * issue + 1);
  EXPECT_DOUBLE_EQ(Hosted{}.simulate(g, two).total_us, 2 * issue + 1 + sync);
  // Replayed from a graph, two streams overlap them, the second started one dispatch after the
  // first (the device's front end takes one kernel at a time).
  EXPECT_DOUBLE_EQ(Graphed{}.simulate(g, two).total_us, graph_launch + devices::V100::spec.dispatch_us + 1);
  EXPECT_DOUBLE_EQ(Graphed{}.simulate(g, one).total_us, graph_launch + 2);
}

TEST(LaunchModel, TheHostIssuesAWaiterAfterWhatItWaitsFor) {
  GraphBuilder b;
  auto x = b.input("x", {1, 8});
  auto r = b.relu(x);
  auto s = b.sigmoid(r);
  auto g = std::move(b).build({s});
  // Stream 0 lists the sigmoid, which waits for the relu on stream 1: the relu goes first
  // (issued 3.8, ends 13.8), the sigmoid is issued at 7.6 and starts after the event.
  Schedule s2{{{{s.node, {r.node}}}, {{r.node, {}}}}};
  auto tl = Hosted{}.simulate(g, s2);
  EXPECT_DOUBLE_EQ(tl.total_us, issue + 10 + event + 6 + sync);
  for (auto const& k : tl.kernels) EXPECT_DOUBLE_EQ(k.start_us, k.node == r.node ? issue : issue + 10 + event);
}

TEST(LaunchModel, TheHostsLastLaunchBoundsTheRun) {
  GraphBuilder b;
  auto x = b.input("x", {1, 8});
  auto t = b.tanh(x);
  auto g = std::move(b).build({t});
  FixedCosts instant;
  instant.other = {0, 0.1, 0};
  Schedule one{{{{t.node, {}}}}};
  EXPECT_DOUBLE_EQ(Hosted(instant).simulate(g, one).total_us, issue);
}

TEST(LaunchModel, RunOverAndOverOnOneStreamAStageCostsTheSlowerOfTheHostAndTheDevice) {
  GraphBuilder b;
  auto x = b.input("x", {1, 8});
  auto r = b.relu(x);       // 10 us
  auto s = b.sigmoid(r);    // 6 us
  auto t = b.tanh(x);       // 1 us
  auto e = b.gelu(t);       // 1 us
  auto g = std::move(b).build({s, e});
  auto repeated = [&](auto rt, Schedule const& sc) { return rt.prepare(g).measure_repeated(sc) * 1000; };
  auto once = [&](auto rt, Schedule const& sc) { return rt.simulate(g, sc).total_us; };
  Schedule long_kernels{{{{r.node, {}}, {s.node, {}}}}};
  Schedule short_kernels{{{{t.node, {}}, {e.node, {}}}}};
  // One run starts with the host's first call; run over and over, the host issues the next
  // run's kernels while these run, and the slower side sets the pace: the device's 16 us, or the
  // host's two calls.
  EXPECT_DOUBLE_EQ(once(Hosted{}, long_kernels), issue + 16);
  EXPECT_DOUBLE_EQ(repeated(Hosted{}, long_kernels), 16);
  EXPECT_DOUBLE_EQ(once(Hosted{}, short_kernels), 2 * issue + 1);
  EXPECT_DOUBLE_EQ(repeated(Hosted{}, short_kernels), 2 * issue);
  // Several streams are synchronized after every run, and a graph's replays are timed one by one.
  Schedule two{{{{r.node, {}}, {s.node, {}}}, {{t.node, {}}, {e.node, {}}}}};
  EXPECT_DOUBLE_EQ(repeated(Hosted{}, two), once(Hosted{}, two));
  EXPECT_DOUBLE_EQ(repeated(Graphed{}, long_kernels), once(Graphed{}, long_kernels));
}

TEST(LaunchModel, StagesRunAsIossEngineRunsThemSynchronizedAroundEveryStageOfSeveralGroups) {
  GraphBuilder b;
  auto x = b.input("x", {1, 8});
  auto r = b.relu(x);        // 10 us
  auto t = b.tanh(r);        // 1 us
  auto e = b.gelu(r);        // 1 us
  auto s = b.sigmoid(b.add(t, e));  // add 1 us, sigmoid 6 us
  auto g = std::move(b).build({s});
  using Stages = std::vector<std::vector<std::vector<NodeId>>>;
  auto measure = [&](Stages const& st) { return Hosted{}.measure_stages(g, std::span<std::vector<std::vector<NodeId>> const>(st)) * 1000; };
  NodeId add = g[s.node].inputs[0].node;
  // One group per stage: one stream, never synchronized. The relu (issued at 3.8) ends at
  // 13.8; the tanh, gelu and add follow it on the device (16.8), and the sigmoid, issued fifth
  // (19.0), runs its 6 us after that.
  EXPECT_NEAR(measure({{{r.node}}, {{t.node}}, {{e.node}}, {{add}}, {{s.node}}}), 5 * issue + 6, 1e-9);
  // The tanh and the gelu as one stage of two groups: the host synchronizes before it (the
  // relu ends at 13.8, the host returns at 13.8 + sync), issues both (ends at + 2 issues + 1)
  // and synchronizes again, then issues the add and the sigmoid (the sigmoid, issued second,
  // starts at 2 issues and runs 6 us).
  double before = issue + 10 + sync;
  double stage = 2 * issue + 1 + sync;
  EXPECT_NEAR(measure({{{r.node}}, {{t.node}, {e.node}}, {{add}}, {{s.node}}}), before + stage + 2 * issue + 6, 1e-9);
}

}  // namespace launch_test
}  // namespace autograph
