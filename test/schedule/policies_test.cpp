// The simple policies: sequential (one stream) and greedy list scheduling onto k streams.
#include <autograph/graph/builder.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <autograph/schedule/greedy.hpp>
#include <autograph/schedule/sequential.hpp>
#include <gtest/gtest.h>

#include "random_dag.hpp"

namespace autograph {
namespace {

TEST(Sequential, OneStreamInTopologicalOrderWithoutWaits) {
  auto g = test::random_dag(7, {.kernels = 20});
  KernelDag dag(g);
  auto s = schedule::sequential(dag);
  EXPECT_EQ(s.num_streams(), 1u);
  EXPECT_EQ(s.num_kernels(), dag.size());
  EXPECT_EQ(s.num_waits(), 0u);
  EXPECT_NO_THROW(check_schedule(dag, s));
}

TEST(Greedy, UsesAtMostKStreamsAndEnforcesEveryDependency) {
  SimulatedRuntime<> rt;
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    auto g = test::random_dag(seed, {.kernels = 5 + seed % 20, .window = 0});
    KernelDag dag(g);
    auto prepared = rt.prepare(g);
    auto times = schedule::detail::kernel_times_ms(dag, prepared);
    for (std::size_t k : {1u, 2u, 4u}) {
      auto s = schedule::greedy(dag, times, k);
      ASSERT_NO_THROW(check_schedule(dag, s)) << "seed " << seed << " k " << k;
      EXPECT_LE(s.num_streams(), k);
      if (dag.size() <= 14) {
        EXPECT_TRUE(test::no_redundant_wait(dag, s)) << "seed " << seed;
      }
    }
  }
}

TEST(Greedy, MoreStreamsThanKernelsAllocateNoEmptyStreams) {
  // `schedule --streams 99999999999` used to allocate that many empty stream lists.
  SimulatedRuntime<> rt;
  auto g = test::random_dag(3, {.kernels = 12});
  KernelDag dag(g);
  auto prepared = rt.prepare(g);
  auto times = schedule::detail::kernel_times_ms(dag, prepared);
  auto s = schedule::greedy(dag, times, 99999999999);
  EXPECT_NO_THROW(check_schedule(dag, s));
  EXPECT_LE(s.streams.size(), dag.size());
}

TEST(Greedy, SpreadsIndependentBranchesOverTheStreams) {
  GraphBuilder b;
  auto x = b.input("x", {1, 64, 28, 28});
  std::vector<Value> branches;
  for (int i = 0; i < 4; ++i) branches.push_back(b.conv2d(x, 64, {3, 3}));
  auto g = std::move(b).build({b.concat(branches)});
  SimulatedRuntime<> rt;
  EXPECT_EQ(schedule::Greedy{.streams = 4}(g, rt).schedule.num_streams(), 4u);
  EXPECT_EQ(schedule::Greedy{.streams = 2}(g, rt).schedule.num_streams(), 2u);
  EXPECT_THROW(schedule::Greedy{.streams = 0}(g, rt), ScheduleError);
}

TEST(KernelTimes, AreEachKernelAloneAsTheRuntimeMeasuresIt) {
  GraphBuilder b;
  auto x = b.input("x", {1, 64, 28, 28});
  auto y = b.relu(b.conv2d(x, 64, {3, 3}));
  auto g = std::move(b).build({y});
  SimulatedRuntime<> rt;
  KernelDag dag(g);
  auto prepared = rt.prepare(g);
  auto ms = schedule::detail::kernel_times_ms(dag, prepared);
  RooflineCost roof;
  for (std::size_t k = 0; k < dag.size(); ++k) {
    auto const& n = g[dag.node(k)];
    EXPECT_NEAR(ms[k] * 1000, roof.estimate(n.op, input_descs(g, dag.node(k)), n.outputs).us, 1e-9);
  }
}

}  // namespace
}  // namespace autograph
