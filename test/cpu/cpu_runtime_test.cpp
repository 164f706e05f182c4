// The CPU runtime against the reference executor: random DAGs under random multi-stream
// schedules and every zoo model under every schedule policy, with real concurrency (at least
// two cores' worth of threads); the thread plan; measuring. The deliberately broken memory plan
// is broken_plan_test.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <random>

#include "autograph/cpu/runtime.hpp"
#include "autograph/cpu/threads_worth.hpp"
#include "autograph/graph/builder.hpp"
#include "autograph/models/zoo.hpp"
#include "autograph/runtime/reference_executor.hpp"
#include "autograph/runtime/simulated_runtime.hpp"
#include "autograph/schedule/greedy.hpp"
#include "autograph/schedule/ios.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/sequential.hpp"
#include "autograph/schedule/waits.hpp"
#include "matches_reference.hpp"
#include "schedule/random_dag.hpp"

namespace autograph::cpu {
namespace {

using test::matches;

std::vector<Tensor> random_inputs(Graph<> const& g, std::uint64_t seed = 1) {
  std::vector<Tensor> in;
  for (NodeId id : g.inputs()) in.push_back(Tensor::random(g[id].outputs[0].shape, seed + id));
  return in;
}

Schedule random_streams(KernelDag const& dag, std::size_t streams, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<NodeId>> s(streams);
  for (NodeId id : dag.nodes()) s[std::uniform_int_distribution<std::size_t>(0, streams - 1)(rng)].push_back(id);
  return insert_waits(dag, s);
}

TEST(CpuRuntime, RandomGraphsUnderRandomStreamsMatchTheReference) {
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    Graph<> g = test::random_dag(seed, {.kernels = 24, .channels = 8, .side = 10});
    fill_random_weights(g, seed);
    auto in = random_inputs(g, seed);
    auto want = ReferenceExecutor<>().run(g, in);
    KernelDag dag(g);
    for (std::size_t streams : {1, 2, 4}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(streams) + " random streams");
      auto exe = CpuExecutable(lower(g), random_streams(dag, streams, seed), {.check_arena = true, .cores = 2});
      for (int repeat = 0; repeat < 3; ++repeat) EXPECT_TRUE(matches(exe.run(in), want, 1e-5));
    }
  }
}

/// Multi-branch models on several streams sharing two cores: the pass ThreadSanitizer runs.
TEST(CpuRuntime, MultiBranchModelsOnSeveralStreamsMatchTheReference) {
  for (auto [name, resolution] : {std::pair{"squeezenet1_1", 64}, {"nasnet_a_mobile", 64}, {"randwire_ws", 64}}) {
    SCOPED_TRACE(name);
    Graph<> g = models::build(name, {.batch = 1, .resolution = resolution, .weight_seed = 4});
    auto in = random_inputs(g);
    auto want = ReferenceExecutor<>().run(g, in);
    Schedule s = schedule::nimble(KernelDag(g));
    ASSERT_GE(s.num_streams(), 2u);
    auto exe = CpuExecutable(lower(g), s, {.check_arena = true, .cores = 2});
    for (int repeat = 0; repeat < 2; ++repeat) EXPECT_TRUE(matches(exe.run(in), want, 1e-4));
  }
}

/// Every zoo model, small images, under each schedule policy.
TEST(SlowCpuRuntime, EveryZooModelUnderEveryScheduleMatchesTheReference) {
  CpuRuntime cpu({.cores = 2});
  for (auto const& m : models::zoo()) {
    if (m.skip_in_sweeps) continue;  // hundreds of millions of weights, or a deeper copy of an entry run here
    SCOPED_TRACE(std::string(m.name));
    auto start = std::chrono::steady_clock::now();
    Graph<> g = m.build({.batch = 1, .resolution = 96, .weight_seed = 3});
    auto in = random_inputs(g);
    auto want = ReferenceExecutor<>().run(g, in);
    SimulatedRuntime<> sim;  // what greedy and IOS decide with; the schedules then run here
    auto check = [&](auto const& policy) {
      SCOPED_TRACE(std::string(policy.name));
      ScheduledGraph<BuiltinOps> sg = policy(g, sim);  // IOS may merge convolutions: the graph changes, its outputs do not
      auto exe = cpu.compile(sg.graph, sg.schedule, {.check_arena = true});
      EXPECT_TRUE(matches(exe.run(in), want, 1e-4));
    };
    check(schedule::Sequential{});
    check(schedule::Nimble{});
    check(schedule::Greedy{});
    check(schedule::Ios{});
    std::printf("[ model    ] %-20s %.1f s\n", std::string(m.name).c_str(), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
}

TEST(CpuRuntime, ThreadsFollowTheSchedule) {
  // Two independent branches joined at the end: on two streams the branches share the
  // cores; the join, alone, takes them all.
  GraphBuilder<> b;
  Value x = b.input("x", {1, 8, 16, 16});
  Value l = b.relu(b.tanh(x)), r = b.sigmoid(b.relu(x));
  Graph<> g = std::move(b).build({b.add(l, r)});
  KernelDag dag(g);
  auto exe = CpuExecutable(lower(g), schedule::nimble(dag), {.cores = 4, .threads_by_work = false});
  ASSERT_EQ(exe.streams(), 2u);
  EXPECT_EQ(exe.threads(l.node), 2);
  EXPECT_EQ(exe.threads(r.node), 2);
  EXPECT_EQ(exe.threads(g.outputs()[0].node), 4);
  auto seq = CpuExecutable(lower(g), schedule::sequential(dag), {.cores = 4, .threads_by_work = false});
  EXPECT_EQ(seq.threads(l.node), 4);
}

TEST(CpuRuntime, ThreadsFollowTheWork) {
  // Eigen's rule (threads_worth.hpp): below 100,000 cycles one thread, then one more per 100,000.
  EXPECT_EQ(threads_worth(0, 0, 4), 4);        // not modelled: the whole share
  EXPECT_EQ(threads_worth(0, 64 * 1024, 4), 1);  // 11,264 cycles of loads
  EXPECT_EQ(threads_worth(0, 64.0 * 1024 * 1024, 4), 4);
  EXPECT_EQ(threads_worth(0, 64.0 * 1024 * 1024, 1), 1);
  EXPECT_LT(kernel_cycles(0, 1e6), kernel_cycles(1e6, 1e6));
  // On one stream with 4 cores: a small activation runs on one thread, a [256, 1024] @
  // [1024, 1024] product (537 MFLOP) on all four; the results are the reference's either way.
  GraphBuilder<> b;
  Value x = b.input("x", {256, 1024});
  Value small = b.relu(b.input("y", {1, 8, 16, 16}));
  Value big = b.matmul(x, b.weight("w", {1024, 1024}, WeightInit::uniform));
  Graph<> g = std::move(b).build({small, big});
  fill_random_weights(g, 3);
  auto exe = CpuExecutable(lower(g), schedule::sequential(KernelDag(g)), {.cores = 4});
  EXPECT_EQ(exe.threads(small.node), 1);
  EXPECT_EQ(exe.threads(big.node), 4);
  std::vector<Tensor> in{Tensor::random({256, 1024}, 1), Tensor::random({1, 8, 16, 16}, 2)};
  EXPECT_TRUE(matches(exe.run(in), ReferenceExecutor<>().run(g, in), 1e-4));
}

TEST(CpuRuntime, MeasuresMedianLatencies) {
  Graph<> g = test::random_dag(5, {.kernels = 12});
  CpuRuntime cpu;
  auto prepared = cpu.prepare(g);  // shape-only weights get random data
  auto samples = prepared.samples(schedule::nimble(KernelDag(g)));
  EXPECT_GE(samples.size(), 50u);
  for (double s : samples) EXPECT_GT(s, 0.0);
  EXPECT_GT(cpu.measure(g), 0.0);
  EXPECT_NE(cpu.kind().find("measured (CPU, "), std::string::npos) << cpu.kind();
  EXPECT_THROW(CpuRuntime({.runs = 10}), Error);
}

TEST(CpuRuntime, RejectsBadInputsAndSchedules) {
  Graph<> g = test::random_dag(2, {.kernels = 6});
  fill_random_weights(g, 2);
  KernelDag dag(g);
  auto exe = CpuExecutable(lower(g), schedule::sequential(dag));
  std::vector<Tensor> wrong{Tensor::random({1, 3, 4, 4}, 1)};
  try {
    exe.run(wrong);
    FAIL() << "no error for an input of the wrong shape";
  } catch (ExecutionError const& e) {
    EXPECT_NE(std::string(e.what()).find("input 'x' has shape"), std::string::npos) << e.what();
  }
  // The executable stays usable.
  auto in = random_inputs(g);
  EXPECT_TRUE(matches(exe.run(in), ReferenceExecutor<>().run(g, in), 1e-5));
  // A schedule that leaves out a kernel, or drops a wait, is refused before anything runs.
  Schedule s = schedule::sequential(dag);
  s.streams[0].pop_back();
  EXPECT_THROW(CpuExecutable(lower(g), s), ScheduleError);
  Graph<> unweighted = test::random_dag(2, {.kernels = 6});
  EXPECT_THROW(lower(unweighted), ExecutionError);  // shape-only weights need data for results
}

}  // namespace
}  // namespace autograph::cpu
