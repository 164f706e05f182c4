// GreedyPerCore: list scheduling onto one stream per core of the runtime, by its cost model.
#include <autograph/cost/roofline.hpp>
#include <autograph/graph/builder.hpp>
#include <autograph/schedule/greedy_per_core.hpp>
#include <gtest/gtest.h>

#include <algorithm>

#include "branches.hpp"
#include "random_dag.hpp"

namespace autograph {
namespace {

/// What GreedyPerCore asks of a runtime: its cores and its cost model. Nothing is run.
struct CoresAndRoofline {
  explicit CoresAndRoofline(int cores = 2) : cores_(cores) {}
  int cores_;
  RooflineCost roof;
  int cores() const { return cores_; }
  RooflineCost const& cost_model() const { return roof; }
};

/// Cores but a "cost model" that estimates nothing: GreedyPerCore would have no kernel times.
struct CoresAndNoModel {
  int cores() const { return 2; }
  int cost_model() const { return 0; }
};
static_assert(schedule::CoreCountingRuntime<CoresAndRoofline>);
static_assert(!schedule::CoreCountingRuntime<CoresAndNoModel>);

TEST(GreedyPerCore, OneStreamPerCoreAndEveryDependencyKept) {
  auto g = test::conv_relu_branches(4);
  KernelDag dag(g);
  for (int cores : {1, 2, 3, 4, 16}) {
    CoresAndRoofline rt(cores);
    auto s = schedule::GreedyPerCore{}(g, rt);
    EXPECT_EQ(s.policy, "greedy-per-core");
    EXPECT_NO_THROW(check_schedule(dag, s.schedule)) << cores << " cores";
    EXPECT_EQ(s.schedule.num_kernels(), dag.size());
    EXPECT_EQ(s.schedule.num_streams(), static_cast<std::size_t>(std::min(cores, 4))) << cores << " cores";  // 4 branches at most side by side
  }
  CoresAndRoofline none(0);  // a runtime that reports no core still gets a stream
  EXPECT_EQ(schedule::GreedyPerCore{}(g, none).schedule.num_streams(), 1u);
}

TEST(GreedyPerCore, TheKernelTimesAreTheCostModelsEstimates) {
  auto g = test::random_dag(5, {.kernels = 24});
  KernelDag dag(g);
  CoresAndRoofline rt;
  auto ms = schedule::estimated_kernel_times_ms(g, dag, rt.cost_model());
  ASSERT_EQ(ms.size(), dag.size());
  for (std::size_t k = 0; k < dag.size(); ++k) {
    auto const& n = g[dag.node(k)];
    EXPECT_NEAR(ms[k] * 1000, rt.roof.estimate(n.op, input_descs(g, dag.node(k)), n.outputs).us, 1e-9) << "kernel " << k;
  }
}

TEST(GreedyPerCore, TheLongBranchGetsAStreamOfItsOwn) {
  // One branch of three heavy convolutions beside three cheap ReLUs, on two cores: by the
  // estimates the heavy chain is the critical path, so it keeps one stream and the ReLUs run
  // beside it on the other (with every time 0, greedy would put all on one stream).
  GraphBuilder b;
  auto x = b.input("x", {1, 256, 28, 28});
  auto heavy = b.conv2d(b.conv2d(b.conv2d(x, 256, {3, 3}), 256, {3, 3}), 256, {3, 3});
  std::vector<Value> outs{heavy};
  for (int i = 0; i < 3; ++i) outs.push_back(b.relu(x));
  auto g = std::move(b).build({b.concat(outs)});
  CoresAndRoofline rt;
  auto s = schedule::GreedyPerCore{}(g, rt).schedule;
  ASSERT_EQ(s.num_streams(), 2u);
  auto holds_conv = [&](std::vector<Launch> const& stream) {
    return std::ranges::any_of(stream, [&](Launch const& l) { return g[l.node].op.name() == "Conv2D"; });
  };
  for (auto const& stream : s.streams) {
    if (!holds_conv(stream)) continue;
    for (Launch const& l : stream) EXPECT_NE(g[l.node].op.name(), "Relu") << "a ReLU delays the critical path on its stream";
  }
}

}  // namespace
}  // namespace autograph
