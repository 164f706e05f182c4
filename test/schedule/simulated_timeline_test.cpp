// SimulatedRuntime's timelines: every kernel's start and end in stream order, and the same
// run drawn as a Chrome trace (apart from simulated_runtime_test.cpp: only this test needs
// the JSON library, which took that file over 10 s of CPU to compile).
#include <algorithm>

#include <autograph/graph/builder.hpp>
#include <autograph/io/chrome_trace.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <gtest/gtest.h>

namespace autograph {
namespace {

TEST(SimulatedRuntime, TimelinesKeepStreamOrderAndDrawAsChromeTraces) {
  GraphBuilder b;
  auto x = b.input("x", {1, 32, 14, 14});
  auto p = b.relu(b.conv2d(x, 32, {3, 3}));
  auto q = b.relu(b.conv2d(x, 32, {1, 1}));
  auto g = std::move(b).build({b.add(p, q)});
  SimulatedRuntime<> rt;
  auto sg = rt.schedule(g);
  auto t = rt.simulate(sg.graph, sg.schedule);
  EXPECT_EQ(t.kernels.size(), sg.schedule.num_kernels());
  EXPECT_EQ(t.kind, rt.kind());
  double last = 0;
  for (auto const& k : t.kernels) {
    EXPECT_LE(k.start_us, k.end_us);
    last = std::max(last, k.end_us);
  }
  EXPECT_DOUBLE_EQ(t.total_us, last);
  EXPECT_DOUBLE_EQ(t.total_us / 1000, rt.measure(g));
  for (auto const& stream : sg.schedule.streams)
    for (std::size_t i = 1; i < stream.size(); ++i) {
      auto at = [&](NodeId id) { return *std::ranges::find(t.kernels, id, &KernelSpan::node); };
      EXPECT_LE(at(stream[i - 1].node).end_us, at(stream[i].node).start_us);
    }
  auto trace = chrome_trace(g, t);
  std::size_t complete = 0;
  for (auto const& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++complete;
    EXPECT_GE(e["dur"].get<double>(), 0);
    EXPECT_LT(e["tid"].get<std::size_t>(), sg.schedule.streams.size());
  }
  EXPECT_EQ(complete, t.kernels.size());
  EXPECT_EQ(trace["otherData"]["kind"], "simulated (roofline, H100 SXM)");
  auto reparsed = nlohmann::json::parse(trace.dump());
  EXPECT_EQ(reparsed, trace);
}

}  // namespace
}  // namespace autograph
