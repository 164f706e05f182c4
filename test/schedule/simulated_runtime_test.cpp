// SimulatedRuntime: worked timelines with fixed kernel costs — sharing the SMs by fill,
// oversubscription, events, graph launch — then the Runtime concept on real costs (timelines
// and their Chrome traces: simulated_timeline_test.cpp).
#include <autograph/graph/builder.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <autograph/schedule/greedy.hpp>
#include <autograph/schedule/sequential.hpp>
#include <gtest/gtest.h>

#include "branches.hpp"

namespace autograph {
namespace {

/// Fixed costs by op type, set per test.
struct FixedCosts {
  KernelCost relu{10, 0.3, 1}, sigmoid{6, 0.5, 1}, other{4, 0.2, 1};
  KernelCost estimate(AnyOp const& op, std::span<TensorDesc const>, std::span<TensorDesc const>) const {
    return op.is<Relu>() ? relu : op.is<Sigmoid>() ? sigmoid : other;
  }
  std::string describe() const { return "fixed costs"; }
};

/// The H100 with a front end that dispatches any number of kernels at once: these timelines
/// show how kernels share the device; its one-at-a-time dispatch has tests of its own
/// (cost/dispatch_test.cpp).
struct H100ParallelDispatch {
  static constexpr DeviceSpec spec = [] {
    DeviceSpec d = devices::H100::spec;
    d.dispatch_us = 0;
    return d;
  }();
};

using Sim = SimulatedRuntime<H100ParallelDispatch, schedule::Nimble, FixedCosts>;
constexpr double launch = devices::H100::spec.graph_launch_us;
constexpr double event = devices::H100::spec.event_us;

static_assert(Runtime<SimulatedRuntime<>>);
static_assert(Runtime<Sim>);
static_assert(SchedulePolicy<schedule::Nimble, SimulatedRuntime<>>);
static_assert(SchedulePolicy<schedule::Sequential, SimulatedRuntime<>>);
static_assert(SchedulePolicy<schedule::Greedy, SimulatedRuntime<>>);
static_assert(!Runtime<int>);

struct Fork {
  Graph<> g;
  Value a, b;
  Fork() {
    GraphBuilder bld;
    auto x = bld.input("x", {1, 8});
    a = bld.relu(x);
    b = bld.sigmoid(x);
    g = std::move(bld).build({a, b});
  }
};

TEST(SimulatedRuntime, SaysItIsAnEstimate) {
  EXPECT_EQ(SimulatedRuntime<>{}.kind(), "simulated (roofline, H100 SXM)");
  EXPECT_EQ((SimulatedRuntime<devices::A100>{}.kind()), "simulated (roofline, A100 SXM4 80GB)");
}

TEST(SimulatedRuntime, OneStreamAddsUpKernelsAfterTheGraphLaunch) {
  Fork f;
  Sim rt;
  Schedule s{{{{f.a.node, {}}, {f.b.node, {}}}}};
  EXPECT_DOUBLE_EQ(rt.measure(f.g, s), (launch + 10 + 6) / 1000);
  EXPECT_DOUBLE_EQ(rt.measure(f.g, Schedule{}), launch / 1000);
}

TEST(SimulatedRuntime, KernelsThatFitTogetherRunAtFullSpeed) {
  Fork f;  // fills 0.3 and 0.5: side by side, each as fast as alone
  Sim rt;
  Schedule s{{{{f.a.node, {}}}, {{f.b.node, {}}}}};
  EXPECT_DOUBLE_EQ(rt.measure(f.g, s), (launch + 10) / 1000);
  auto t = rt.simulate(f.g, s);
  ASSERT_EQ(t.kernels.size(), 2u);
  for (auto const& k : t.kernels) EXPECT_DOUBLE_EQ(k.end_us - k.start_us, k.node == f.a.node ? 10 : 6);
}

TEST(SimulatedRuntime, OversubscribedKernelsSlowDownByTheOversubscription) {
  Fork f;
  FixedCosts costs;
  costs.relu = {10, 0.8, 1};    // 9 us of work
  costs.sigmoid = {5, 0.8, 1};  // 4 us of work
  Sim rt(costs);
  Schedule s{{{{f.a.node, {}}}, {{f.b.node, {}}}}};
  // Both start work at launch + 1 at 1/1.6 speed; sigmoid's 4 us take 6.4 us, then relu's
  // remaining 5 us run alone.
  auto t = rt.simulate(f.g, s);
  for (auto const& k : t.kernels) EXPECT_NEAR(k.end_us, k.node == f.b.node ? launch + 1 + 6.4 : launch + 1 + 6.4 + 5, 1e-9);
  EXPECT_NEAR(t.total_us, launch + 12.4, 1e-9);
}

TEST(SimulatedRuntime, ACrossStreamWaitCostsAnEvent) {
  GraphBuilder b;
  auto x = b.input("x", {1, 8});
  auto a = b.relu(x);
  auto c = b.sigmoid(a);
  auto g = std::move(b).build({c});
  Sim rt;
  Schedule s{{{{a.node, {}}}, {{c.node, {a.node}}}}};
  EXPECT_DOUBLE_EQ(rt.measure(g, s), (launch + 10 + event + 6) / 1000);
  Schedule racy{{{{a.node, {}}}, {{c.node, {}}}}};
  EXPECT_THROW(rt.measure(g, racy), ScheduleError);
  Schedule not_a_kernel{{{{x.node, {}}}}};
  EXPECT_THROW(rt.measure(g, not_a_kernel), ScheduleError);
}

TEST(SimulatedRuntime, APartialScheduleTakesTheRestAsDone) {
  GraphBuilder b;
  auto x = b.input("x", {1, 8});
  auto a = b.relu(x);
  auto c = b.sigmoid(a);
  auto g = std::move(b).build({c});
  Sim rt;
  EXPECT_DOUBLE_EQ(rt.measure(g, Schedule{{{{c.node, {}}}}}), (launch + 6) / 1000);
}

TEST(SimulatedRuntime, MeasuringAGraphSchedulesItWithThePolicy) {
  auto g = test::conv_relu_branches(4);
  SimulatedRuntime<> nimble;
  SimulatedRuntime<devices::H100, schedule::Sequential> sequential;
  SimulatedRuntime<devices::H100, schedule::Greedy> greedy;
  double t_seq = sequential.measure(g), t_nimble = nimble.measure(g), t_greedy = greedy.measure(g);
  EXPECT_DOUBLE_EQ(t_seq, nimble.measure(g, schedule::sequential(KernelDag(g))));
  EXPECT_LT(t_nimble, 0.5 * t_seq);  // four small convolutions side by side
  EXPECT_LT(t_greedy, 0.5 * t_seq);
  // A slower device takes longer.
  EXPECT_GT(SimulatedRuntime<devices::V100>{}.measure(g), t_nimble);
}

TEST(SimulatedRuntime, ADeviceGivenAtRunTimeSimulatesAsItsType) {
  GraphBuilder b;
  auto x = b.input("x", {1, 32, 28, 28});
  auto g = std::move(b).build({b.concat({b.conv2d(x, 64, {3, 3}), b.conv2d(x, 32, {1, 1})})});
  for (DeviceSpec const& d : devices::all) {
    SimulatedRuntime<devices::AtRunTime> at_run_time(d);
    EXPECT_EQ(at_run_time.device().name, d.name);
    EXPECT_EQ(at_run_time.kind(), "simulated (roofline, " + std::string(d.name) + ")");
  }
  SimulatedRuntime<devices::AtRunTime, schedule::Sequential> v100(devices::V100::spec);
  EXPECT_DOUBLE_EQ(v100.measure(g), (SimulatedRuntime<devices::V100, schedule::Sequential>{}.measure(g)));
  EXPECT_DOUBLE_EQ(SimulatedRuntime<devices::AtRunTime>(devices::K80::spec).measure(g), SimulatedRuntime<devices::K80>{}.measure(g));
  EXPECT_NE(v100.measure(g), (SimulatedRuntime<devices::AtRunTime, schedule::Sequential>(devices::H100::spec).measure(g)));
  // Its type is one for every device, and it has no default device.
  static_assert(!std::default_initializable<SimulatedRuntime<devices::AtRunTime>>);
  static_assert(Runtime<SimulatedRuntime<devices::AtRunTime>>);
}

}  // namespace
}  // namespace autograph
