// Ios::replay: a plan IOS made for one graph run on another graph of the same nodes (the model
// at another batch size, or searched for another device), as the IOS work runs a schedule
// optimized for one batch or GPU on another; and plans that do not fit the graph, refused by name.
#include <autograph/graph/builder.hpp>
#include <autograph/runtime/plan/schedule_check.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <autograph/schedule/ios.hpp>
#include <gtest/gtest.h>

#include "random_dag.hpp"

namespace autograph {
namespace {

/// Three inception-style modules at batch `n`: the same nodes at every batch.
Graph<> modules(std::int64_t n) {
  GraphBuilder b;
  auto x = b.input("x", {n, 32, 14, 14});
  for (int i = 0; i < 3; ++i) {
    auto p = b.relu(b.conv2d(x, 8, {1, 1}));
    auto q = b.relu(b.conv2d(b.conv2d(x, 8, {1, 1}), 8, {3, 3}));
    auto r = b.conv2d(b.max_pool(x, {3, 3}, {.stride = {1, 1}, .pad = {1, 1, 1, 1}}), 16, {1, 1});
    x = b.concat({p, q, r});
  }
  return std::move(b).build({x});
}

std::vector<std::vector<std::vector<NodeId>>> groups_of(std::vector<schedule::IosStage> const& stages) {
  std::vector<std::vector<std::vector<NodeId>>> out;
  for (auto const& st : stages) out.push_back(st.groups);
  return out;
}

TEST(IosReplay, ItsOwnPlanGivesTheSameStagesAndSchedule) {
  SimulatedRuntime<> rt;
  auto g = modules(1);
  auto r = schedule::Ios{}.run(g, rt);
  ASSERT_FALSE(r.plan.empty());
  auto again = schedule::Ios::replay(g, std::span<schedule::IosStage const>(r.plan));
  EXPECT_EQ(groups_of(again.stages), groups_of(r.stages));
  EXPECT_EQ(again.schedule.num_kernels(), r.schedule.num_kernels());
  EXPECT_DOUBLE_EQ(again.stats.estimated_ms, r.stats.estimated_ms);  // the plan's own latencies
  EXPECT_EQ(again.plan.size(), r.plan.size());
}

TEST(IosReplay, APlanMadeAtOneBatchRunsTheModelAtAnother) {
  SimulatedRuntime<> rt;
  auto at1 = modules(1), at32 = modules(32);
  auto for1 = schedule::Ios{}.run(at1, rt), for32 = schedule::Ios{}.run(at32, rt);
  auto replayed = schedule::Ios::replay(at32, std::span<schedule::IosStage const>(for1.plan));
  KernelDag dag(replayed.graph);
  EXPECT_NO_THROW(check_schedule(dag, replayed.schedule));
  EXPECT_EQ(groups_of(replayed.stages), groups_of(for1.stages));
  // The schedule searched for batch 32 is at least as fast there as the one searched for batch 1
  // (here they are the same stages: the modules are too narrow for batch 32 to change them).
  EXPECT_LE(rt.measure(for32.graph, for32.schedule), rt.measure(replayed.graph, replayed.schedule) * (1 + 1e-12));
}

TEST(IosReplay, RefusesAPlanThatDoesNotFitTheGraphByName) {
  SimulatedRuntime<> rt;
  auto g = modules(1);
  auto r = schedule::Ios{}.run(g, rt);
  auto refuses = [&](Graph<> const& other, std::vector<schedule::IosStage> const& plan, std::string const& says) {
    try {
      schedule::Ios::replay(other, std::span<schedule::IosStage const>(plan));
      ADD_FAILURE() << "no error; expected one saying '" << says << "'";
    } catch (ScheduleError const& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  // Another network: the plan names nodes that are not its kernels.
  refuses(test::random_dag(4, {.kernels = 5}), r.plan, "which is not a kernel of this graph");
  // A kernel left out, and one run twice.
  auto short_plan = r.plan;
  short_plan.pop_back();
  refuses(g, short_plan, "the plan does not run");
  auto twice = r.plan;
  twice.push_back(twice.front());
  refuses(g, twice, "twice");
}

}  // namespace
}  // namespace autograph
