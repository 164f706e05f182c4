// CpuRuntime::kernel_times_ms: GreedyPerCore's kernel times, each kernel signature timed alone
// once on this CPU and kept for the runtime and its copies; the cost model's estimates where
// timing is off or past the deadline.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "autograph/cpu/runtime.hpp"
#include "autograph/graph/builder.hpp"
#include "autograph/graph/stats.hpp"

namespace autograph::cpu {
namespace {

/// `n` branches of a 3x3 convolution (`channels` out) and a ReLU on one input, concatenated:
/// every branch's kernels share their signatures.
Graph<> conv_branches(int n, std::int64_t channels = 16) {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 16, 12, 12});
  std::vector<Value> branches;
  for (int i = 0; i < n; ++i) branches.push_back(b.relu(b.conv2d(x, channels, {3, 3})));
  return std::move(b).build({b.concat(branches)});
}

static_assert(schedule::KernelTimingRuntime<CpuRuntime, BuiltinOps>);  // GreedyPerCore asks it, not the cost model

std::set<std::string> signatures(Graph<> const& g) {
  KernelDag dag(g);
  std::set<std::string> s;
  for (std::size_t k = 0; k < dag.size(); ++k) s.insert(op_signature(g[dag.node(k)].op, input_descs(g, dag.node(k))));
  return s;
}

TEST(CpuKernelTimes, EachSignatureIsTimedOnceForTheRuntimeAndItsCopies) {
  Graph<> g = conv_branches(6);
  KernelDag dag(g);
  CpuRuntime cpu({.cores = 2});
  std::vector<double> ms = cpu.kernel_times_ms(g, dag);
  ASSERT_EQ(ms.size(), dag.size());
  EXPECT_EQ(cpu.kernels_timed(), signatures(g).size());
  EXPECT_LT(signatures(g).size(), dag.size());  // the branches share their kernels' signatures
  for (double t : ms) EXPECT_GE(t, 0.0);

  CpuRuntime copy = cpu;
  EXPECT_EQ(copy.kernel_times_ms(g, dag), ms);  // kept: nothing timed again
  EXPECT_EQ(cpu.kernels_timed(), signatures(g).size());

  // A graph with a wider branch times only the signatures it adds.
  Graph<> h = conv_branches(2, 24);
  std::size_t added = 0;
  for (auto const& s : signatures(h)) added += !signatures(g).contains(s);
  ASSERT_GT(added, 0u);
  copy.kernel_times_ms(h, KernelDag(h));
  EXPECT_EQ(cpu.kernels_timed(), signatures(g).size() + added);
}

TEST(CpuKernelTimes, AHeavierKernelTakesLonger) {
  // A 64-channel 3x3 convolution on 32x32 (75 MFLOP) against a ReLU over its output (64 K
  // values): orders of magnitude apart, whatever else the machine runs.
  GraphBuilder<> b;
  Value x = b.input("x", {1, 64, 32, 32});
  Value c = b.conv2d(x, 64, {3, 3});  // padded "same"
  Graph<> g = std::move(b).build({b.relu(c)});
  KernelDag dag(g);
  CpuRuntime cpu({.cores = 1});
  std::vector<double> ms = cpu.kernel_times_ms(g, dag);
  ASSERT_EQ(ms.size(), 2u);
  std::size_t conv = g[dag.node(0)].op.is<Conv2D>() ? 0 : 1;
  EXPECT_GT(ms[conv], ms[1 - conv]);
  EXPECT_GT(ms[conv], 0.0);
}

TEST(CpuKernelTimes, OffOrPastTheDeadlineTheEstimatesStandIn) {
  Graph<> g = conv_branches(4);
  KernelDag dag(g);
  CpuRuntime plain({.cores = 2});
  std::vector<double> estimates = schedule::estimated_kernel_times_ms(g, dag, plain.cost_model());

  CpuRuntimeOptions off{.cores = 2};
  off.time_kernels = false;
  CpuRuntime untimed(off);
  EXPECT_EQ(untimed.kernel_times_ms(g, dag), estimates);
  EXPECT_EQ(untimed.kernels_timed(), 0u);

  CpuRuntime late({.cores = 2});
  late.set_deadline(std::chrono::steady_clock::now());
  EXPECT_EQ(late.kernel_times_ms(g, dag), estimates);
  EXPECT_EQ(late.kernels_timed(), 0u);
}

TEST(CpuKernelTimes, GreedyPerCoreSchedulesByThem) {
  Graph<> g = conv_branches(4);
  CpuRuntime cpu({.cores = 2});
  auto s = schedule::GreedyPerCore{}(g, cpu);
  EXPECT_EQ(cpu.kernels_timed(), signatures(g).size());
  EXPECT_NO_THROW(check_schedule(KernelDag(g), s.schedule));
  EXPECT_EQ(s.schedule.num_streams(), 2u);
}

TEST(CpuKernelTimes, RunsPerKernelMustBePositive) {
  CpuRuntimeOptions o;
  o.kernel_runs = 0;
  try {
    CpuRuntime cpu(o);
    FAIL() << "kernel_runs = 0 was taken";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("kernel_runs must be at least 1, got 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace autograph::cpu
