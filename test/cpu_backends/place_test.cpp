// Op-level placement measured on this machine: a zoo model placed on OneDnn + Blas + OwnKernels
// with a fresh cost database gives the reference executor's outputs, a second placement
// measures nothing, and a backend that claims a group it cannot build is named.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include <autograph/cpu/backends/blas.hpp>
#include <autograph/cpu/backends/onednn.hpp>
#include <autograph/cpu/backends/own_kernels.hpp>
#include <autograph/cpu/backends/place.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/runtime/reference_executor.hpp>

#include "../cpu/matches_reference.hpp"

namespace autograph::cpu {
namespace {

using All = Backends<backends::OneDnn, backends::Blas, backends::OwnKernels>;

std::filesystem::path fresh_db(std::string const& name) {
  auto dir = std::filesystem::temp_directory_path() / ("autograph_place_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir / name);
  return dir / name;
}

CpuRuntimeOptions quick() { return {.warmup = 1, .budget_ms = 2}; }

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
  EXPECT_EQ(reports, placed.costs.measured + 1);
  std::vector<Tensor> in;
  for (NodeId n : g.inputs()) in.push_back(Tensor::random(g[n].outputs[0].shape, 9));
  auto exe = cpu.compile(placed.graph, schedule::sequential(KernelDag(placed.graph)));
  EXPECT_TRUE(test::matches(exe.run(in), ReferenceExecutor<>().run(g, in), 1e-4));

  placement::CostDatabase again(path, cpu_device_name(cpu));
  auto second = place(All{}, g, cpu, again);
  EXPECT_EQ(second.costs.measured, 0u);
  EXPECT_DOUBLE_EQ(second.placement.cost, placed.placement.cost);
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

/// Claims every Relu, then cannot build one.
struct Broken {
  static constexpr std::string_view name = "broken";
  template <class Set>
  void declare(placement::BackendSpec<Set>& spec) const {
    spec.add(placement::PatternRule<Set>{.name = "relu",
                                         .valid_op = [](Graph<Set> const& g, NodeId n) { return g[n].template is<Relu>(); },
                                         .fusion = [](Graph<Set> const&, std::span<NodeId const>) { return true; },
                                         .max_size = 1});
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, placement::Group const&) const {
    return rules::ok;
  }
  void build(Graph<BuiltinOps> const&, Preparation& p) const { p.reject("this backend has no kernels yet"); }
};

TEST(Place, ABackendThatCannotBuildWhatItClaimsIsNamed) {
  auto g = models::build("squeezenet1_1", {.resolution = 32});
  CpuRuntime cpu(quick());
  placement::CostDatabase db(fresh_db("broken.json"), cpu_device_name(cpu));
  try {
    place(Backends<backends::OneDnn, Broken>{}, g, cpu, db);
    FAIL() << "expected an Error";
  } catch (Error const& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("backend 'broken' claims the group Relu"), std::string::npos) << what;
    EXPECT_NE(what.find("this backend has no kernels yet"), std::string::npos) << what;
  }
}

/// Claims every Relu with a kernel that spins for a millisecond: slow in any model.
struct Slow {
  static constexpr std::string_view name = "slow";
  template <class Set>
  void declare(placement::BackendSpec<Set>& spec) const {
    Broken{}.declare(spec);
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, placement::Group const&) const {
    return rules::ok;
  }
  void build(Graph<BuiltinOps> const&, Preparation& p) const {
    std::int64_t n = p.outputs()[0].numel();
    p.run("slow relu", [n](Io const& io) -> Runner {
      return [x = io.in[0], y = io.out[0], n] {
        auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
        while (std::chrono::steady_clock::now() < until) {
        }
        for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : 0.f;
      };
    });
  }
};

TEST(Place, TheGuardKeepsTheSingleBackendWhenThePlacementMeasuresSlower) {
  auto g = models::build("squeezenet1_1", {.resolution = 32, .weight_seed = 2});
  CpuRuntime cpu(quick());
  placement::CostDatabase db(fresh_db("guard.json"), cpu_device_name(cpu));
  // Costs recorded as if the slow Relus were free: the DP places every Relu there.
  placement::GraphFacts<BuiltinOps> facts(g);
  for (NodeId n : facts.placed_nodes())
    if (g[n].is<Relu>()) db.insert("slow", placement::group_signature(facts, placement::Group{{n}}), 0.0);
  auto placed = place_guarded(Backends<backends::OneDnn, Slow>{}, g, cpu, cpu, db, "onednn");
  EXPECT_NE(placed.guard.find("kept onednn alone"), std::string::npos) << placed.guard;
  for (auto const& pg : placed.placement.groups) EXPECT_EQ(placed.placement.backend_of(pg), "onednn");
  auto dp = place(Backends<backends::OneDnn, Slow>{}, g, cpu, db);
  EXPECT_GT(std::ranges::count_if(dp.placement.groups, [&](auto const& pg) { return dp.placement.backend_of(pg) == "slow"; }), 0);
}

}  // namespace
}  // namespace autograph::cpu
