// Op-level placement measured on this machine: a zoo model placed on OneDnn + Blas + OwnKernels
// with a fresh cost database gives the reference executor's outputs, a second placement
// measures nothing, and one backend alone is a placement too.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include <autograph/cpu/backends/blas.hpp>
#include <autograph/cpu/backends/onednn.hpp>
#include <autograph/cpu/backends/own_kernels.hpp>
#include <autograph/cpu/backends/place.hpp>
#include <autograph/graph/stats.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/runtime/reference_executor.hpp>

#include "../cpu/matches_reference.hpp"
#include "scratch.hpp"

namespace autograph::cpu {
namespace {
using testing::fresh_db;
using testing::quick;

using All = Backends<backends::OneDnn, backends::Blas, backends::OwnKernels>;

TEST(Place, SqueezeNetPlacedRunsLikeTheReferenceAndIsMeasuredOnce) {
  auto g = models::build("squeezenet1_1", {.resolution = 64, .weight_seed = 5});
  auto path = fresh_db("squeezenet.json");
  CpuRuntime cpu(quick());
  std::size_t reports = 0;
  PlacedGraph placed;
  {
    placement::CostDatabase db(path, cpu_device_name(cpu));
    placed = place(All{}, g, cpu, db, {.progress = [&](placement::CostProgress const&) { ++reports; }});
  }
  EXPECT_GT(placed.costs.measured, 0u);
  EXPECT_EQ(placed.costs.measured, placed.costs.distinct);
  EXPECT_GT(placed.reorders.measured, 0u);  // one per 4-D shape, for the layout conversions
  EXPECT_LT(placed.costs.signatures_measured, placed.costs.measured);  // some signature has several backends, timed together
  // each signature (its backends together) and each reorder, and "done" after the groups and the reorders
  EXPECT_EQ(reports, placed.costs.signatures_measured + 1 + placed.reorders.measured + 1);
  std::vector<Tensor> in;
  for (NodeId n : g.inputs()) in.push_back(Tensor::random(g[n].outputs[0].shape, 9));
  auto exe = cpu.compile(placed.graph, schedule::sequential(KernelDag(placed.graph)));
  EXPECT_TRUE(test::matches(exe.run(in), ReferenceExecutor<>().run(g, in), 1e-4));

  placement::CostDatabase again(path, cpu_device_name(cpu));
  auto second = place(All{}, g, cpu, again);
  EXPECT_EQ(second.costs.measured, 0u);
  EXPECT_EQ(second.reorders.measured, 0u);
  EXPECT_DOUBLE_EQ(second.placement.cost, placed.placement.cost);
}

TEST(Place, WeightsReadFromMemoryAreCostsOfTheirOwn) {
  auto g = models::build("squeezenet1_1", {.resolution = 32, .weight_seed = 3});
  CpuRuntime cpu(quick());
  placement::CostDatabase db(fresh_db("weights.json"), cpu_device_name(cpu));
  auto cached = place(All{}, g, cpu, db, {.weights = WeightsWhenTimed::cached});
  EXPECT_FALSE(cached.weights_from_memory);
  auto cold = place(All{}, g, cpu, db, {.weights = WeightsWhenTimed::from_memory});
  EXPECT_TRUE(cold.weights_from_memory);
  EXPECT_EQ(cold.costs.measured, cold.costs.distinct);  // no cached-weights cost is read for it
  EXPECT_EQ(db.size(), cached.costs.distinct + cold.costs.distinct + cached.reorders.measured);
  std::vector<Tensor> in;
  for (NodeId n : g.inputs()) in.push_back(Tensor::random(g[n].outputs[0].shape, 4));
  auto exe = cpu.compile(cold.graph, schedule::sequential(KernelDag(cold.graph)));
  EXPECT_TRUE(test::matches(exe.run(in), ReferenceExecutor<>().run(g, in), 1e-4));
  // As in the model: from memory exactly when the model's weights exceed the last-level cache.
  auto as_model = place(All{}, g, cpu, db);
  EXPECT_EQ(as_model.weights_from_memory, static_cast<std::size_t>(detail::weight_bytes(g)) > last_level_cache_bytes());
  EXPECT_EQ(detail::weight_bytes(g), 4 * graph_stats(g).parameters);
  EXPECT_EQ(as_model.costs.measured, 0u);
}

TEST(Place, OneBackendAloneIsAPlacementToo) {
  auto g = models::build("squeezenet1_1", {.resolution = 32});
  CpuRuntime cpu(quick());
  placement::CostDatabase db(fresh_db("alone.json"), cpu_device_name(cpu));
  auto p = place(All{}, g, cpu, db, {.backends = {"onednn"}});
  for (auto const& pg : p.placement.groups) EXPECT_EQ(p.placement.backend_of(pg), "onednn");
  try {
    place(All{}, g, cpu, db, {.backends = {"own"}});
    FAIL() << "expected an Error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("no backend can run Conv2D"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace autograph::cpu
