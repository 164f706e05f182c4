// The runtime concept ladder, both ways: Measurer (schedule/) -> Runtime -> EstimatingRuntime.
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/runtime/runtime.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <autograph/schedule/sequential.hpp>

namespace autograph {
namespace {

struct MeasuresSchedules {
  double measure(Graph<> const&, Schedule const&) { return 1; }
};
struct MeasuresGraphs : MeasuresSchedules {
  using MeasuresSchedules::measure;
  double measure(Graph<> const&) { return 1; }
  std::string kind() const { return "test"; }
};
struct Estimates : MeasuresGraphs {
  RooflineCost const& cost_model() const { return model; }
  RooflineCost model{devices::H100::spec};
};
struct EstimatesWithoutACostModel : MeasuresGraphs {
  int cost_model() const { return 0; }  // not an OpCostModel
};

static_assert(Measurer<MeasuresSchedules> && !Runtime<MeasuresSchedules>);
static_assert(Measurer<MeasuresGraphs> && Runtime<MeasuresGraphs> && !EstimatingRuntime<MeasuresGraphs>);
static_assert(Runtime<Estimates> && EstimatingRuntime<Estimates>);
static_assert(Runtime<EstimatesWithoutACostModel> && !EstimatingRuntime<EstimatesWithoutACostModel>);
static_assert(EstimatingRuntime<SimulatedRuntime<>> && Measurer<SimulatedRuntime<>>);
static_assert(EstimatingRuntime<SimulatedRuntime<devices::H100, schedule::Sequential>>);

TEST(RuntimeConcepts, PrepareUsesTheRuntimesOwnPreparedGraph) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto g = std::move(b).build({b.relu(b.conv2d(x, 4, {3, 3}))});
  SimulatedRuntime<> rt;
  auto p = prepare(rt, g);
  static_assert(std::is_same_v<decltype(p), SimulatedRuntime<>::Prepared<BuiltinOps>>);
  Schedule none;
  EXPECT_DOUBLE_EQ(p.measure(none), rt.measure(g, none));
}

}  // namespace
}  // namespace autograph
