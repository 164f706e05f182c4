// Schedules need only a Measurer (schedule/measurer.hpp), which schedule/ owns: this file
// includes every schedule policy and sees nothing of runtime/, and the policies run on a
// measurer that is no Runtime (no kind(), no measure(g)).
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/schedule/greedy.hpp>
#include <autograph/schedule/ios.hpp>
#include <autograph/schedule/nimble.hpp>
#include <autograph/schedule/policy.hpp>
#include <autograph/schedule/sequential.hpp>

namespace autograph {
struct Timeline;  // defined by runtime/runtime.hpp

namespace {

template <class T>
concept Complete = requires { sizeof(T); };
static_assert(!Complete<Timeline>, "a schedule header includes runtime/runtime.hpp");

/// Kernels never overlap: a schedule costs 1 ms per kernel it launches, plus 0.5 ms per run.
struct CountingMeasurer {
  int calls = 0;
  double measure(Graph<> const&, Schedule const& s) {
    ++calls;
    return 0.5 + static_cast<double>(s.num_kernels());
  }
};
static_assert(Measurer<CountingMeasurer>);
static_assert(SchedulePolicy<schedule::Greedy, CountingMeasurer>);
static_assert(SchedulePolicy<schedule::Ios, CountingMeasurer>);
static_assert(!Measurer<int>);

Graph<> two_branches() {
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  return std::move(b).build({b.relu(b.conv2d(x, 4, {3, 3})), b.sigmoid(b.conv2d(x, 4, {1, 1}))});
}

TEST(Measurer, GreedySchedulesWithAMeasurerThatIsNoRuntime) {
  auto g = two_branches();
  CountingMeasurer m;
  auto r = schedule::Greedy{}(g, m);
  KernelDag dag(r.graph);
  EXPECT_NO_THROW(check_schedule(dag, r.schedule));
  EXPECT_EQ(m.calls, static_cast<int>(dag.size()) + 1);  // each kernel alone, and the empty run
}

TEST(Measurer, PrepareFallsBackToMeasuringTheGraphEachTime) {
  auto g = two_branches();
  CountingMeasurer m;
  auto p = prepare(m, g);
  EXPECT_DOUBLE_EQ(p.measure(Schedule{}), 0.5);
  EXPECT_DOUBLE_EQ(p.measure(schedule::sequential(KernelDag(g))), 0.5 + static_cast<double>(KernelDag(g).size()));
  EXPECT_EQ(m.calls, 2);
}

}  // namespace
}  // namespace autograph
