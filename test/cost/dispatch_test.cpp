// The device's front end dispatches one kernel at a time (DeviceSpec::dispatch_us,
// runtime/simulated_runtime.hpp): kernels that become ready together on several streams start
// dispatch_us apart, while one stream never waits for it.
#include <autograph/graph/builder.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <gtest/gtest.h>

namespace autograph {
namespace {

/// Every kernel 10 us, 1 us of it latency, a fifth of the device: five fit side by side.
struct TenMicroseconds {
  KernelCost estimate(AnyOp const&, std::span<TensorDesc const>, std::span<TensorDesc const>) const { return {10, 0.2, 1}; }
  std::string describe() const { return "10 us kernels"; }
};

/// The V100 with a front end that dispatches any number of kernels at once.
struct ParallelDispatchV100 {
  static constexpr DeviceSpec spec = [] {
    DeviceSpec d = devices::V100::spec;
    d.dispatch_us = 0;
    return d;
  }();
};

using Serial = SimulatedRuntime<devices::V100, schedule::Nimble, TenMicroseconds>;
using Parallel = SimulatedRuntime<ParallelDispatchV100, schedule::Nimble, TenMicroseconds>;
constexpr double graph_launch = devices::V100::spec.graph_launch_us;
constexpr double dispatch = devices::V100::spec.dispatch_us;

/// Four independent kernels on the input, and a schedule for each stream count.
struct Fan {
  Graph<> g;
  std::vector<NodeId> k;
  Fan() {
    GraphBuilder b;
    auto x = b.input("x", {1, 8});
    std::vector<Value> outs{b.relu(x), b.tanh(x), b.sigmoid(x), b.gelu(x)};
    for (auto const& o : outs) k.push_back(o.node);
    g = std::move(b).build(outs);
  }
  Schedule on(std::size_t streams) const {
    Schedule s;
    s.streams.resize(streams);
    for (std::size_t i = 0; i < k.size(); ++i) s.streams[i % streams].push_back(Launch{k[i], {}});
    return s;
  }
};

TEST(FrontEndDispatch, EveryGpuDescriptionDispatchesPartOfItsKernelLatency) {
  for (DeviceSpec const& d : devices::all) {
    EXPECT_GT(d.dispatch_us, 0) << d.name;
    EXPECT_LE(d.dispatch_us, d.launch_us) << d.name;
  }
}

TEST(FrontEndDispatch, KernelsReadyTogetherOnSeveralStreamsStartOneDispatchApart) {
  Fan f;
  // Four streams: all four are ready at the graph's launch and fit the device side by side; the
  // front end starts them at 0, 1, 2 and 3 dispatches, so the last ends 3 dispatches after the
  // first would alone.
  auto tl = Serial{}.simulate(f.g, f.on(4));
  EXPECT_DOUBLE_EQ(tl.total_us, graph_launch + 3 * dispatch + 10);
  EXPECT_DOUBLE_EQ(Parallel{}.simulate(f.g, f.on(4)).total_us, graph_launch + 10);
  // Each ends one dispatch after the one launched before it.
  std::vector<double> ends;
  for (KernelSpan const& s : tl.kernels) ends.push_back(s.end_us);
  std::ranges::sort(ends);
  for (std::size_t i = 0; i < ends.size(); ++i) EXPECT_DOUBLE_EQ(ends[i], graph_launch + static_cast<double>(i) * dispatch + 10);
}

TEST(FrontEndDispatch, OneStreamNeverWaitsForTheFrontEnd) {
  Fan f;
  // Each kernel becomes ready when the one before it ends, long after the front end is free.
  EXPECT_DOUBLE_EQ(Serial{}.simulate(f.g, f.on(1)).total_us, graph_launch + 40);
  EXPECT_DOUBLE_EQ(Serial{}.simulate(f.g, f.on(1)).total_us, Parallel{}.simulate(f.g, f.on(1)).total_us);
}

TEST(FrontEndDispatch, TwoStreamsPayOneDispatchPerPairOfKernels) {
  Fan f;
  // Two streams of two: the second stream's kernels start one dispatch after the first's, at
  // the start and again when the first pair ends.
  EXPECT_DOUBLE_EQ(Serial{}.simulate(f.g, f.on(2)).total_us, graph_launch + dispatch + 20);
  EXPECT_DOUBLE_EQ(Parallel{}.simulate(f.g, f.on(2)).total_us, graph_launch + 20);
}

}  // namespace
}  // namespace autograph
