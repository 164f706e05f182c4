// Placement's guards: a backend that claims a group it cannot build is named, and
// place_guarded keeps the best single backend when the DP's placement measures slower.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include <autograph/cpu/backends/onednn.hpp>
#include <autograph/cpu/backends/place.hpp>
#include <autograph/models/zoo.hpp>

#include "placement/test_backends.hpp"
#include "scratch.hpp"

namespace autograph::cpu {
namespace {
using testing::fresh_db;
using testing::quick;

/// Claims every Relu, then cannot build one.
struct Broken {
  static constexpr std::string_view name = "broken";
  template <class Set>
  void declare(placement::BackendSpec<Set>& spec) const {
    spec.add(placement::testing::one_relu_rule<Set>());
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, NodeGroup const&) const {
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
  rules::Status can_run(Graph<Set> const&, NodeGroup const&) const {
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

/// Every Relu of `g` recorded free on the slow backend (1 us on oneDNN), and every reorder free (its kernel
/// reads and writes plain, between channels-last convolutions: the DP charges the conversions).
void record_free_relus(Graph<> const& g, placement::CostDatabase& db) {
  GraphFacts<BuiltinOps> facts(g);
  for (NodeId n : facts.placed_nodes()) {
    if (g[n].is<Relu>()) {
      // oneDNN's cost of a lone Relu too: a signature missing one of its backends would be
      // timed again on all of them (candidate_costs), the lie replaced by a measurement.
      db.insert("slow", group_signature(facts, NodeGroup{{n}}), 0.0);
      db.insert("onednn", group_signature(facts, NodeGroup{{n}}), 1.0);
    }
    for (auto const& d : g[n].outputs)
      if (d.shape.rank() == 4) db.insert("reorder", reorder_signature(d.shape), 0.0);
    for (Value in : g[n].inputs)
      if (g.desc(in).shape.rank() == 4) db.insert("reorder", reorder_signature(g.desc(in).shape), 0.0);
  }
}

TEST(Place, TheGuardKeepsTheSingleBackendWhenThePlacementMeasuresSlower) {
  auto g = models::build("squeezenet1_1", {.resolution = 32, .weight_seed = 2});
  CpuRuntime cpu(quick());
  placement::CostDatabase db(fresh_db("guard.json"), cpu_device_name(cpu));
  // Costs recorded as if the slow Relus were free, and the reorders around their plain kernel
  // too: the DP places every Relu there.
  record_free_relus(g, db);
  auto singles = single_backends(Backends<backends::OneDnn, Slow>{});
  ASSERT_EQ(singles.size(), 2u);
  EXPECT_EQ(singles[0].label, "onednn alone");
  EXPECT_EQ(singles[1].label, "slow (+ onednn for the rest)");
  auto placed = place_guarded(Backends<backends::OneDnn, Slow>{}, g, cpu, cpu, db, {singles[0]});
  EXPECT_EQ(placed.kept, "onednn alone") << placed.guard;
  ASSERT_EQ(placed.decisions.size(), 1u);
  EXPECT_EQ(placed.decisions[0].challenger, "op-level placement");
  EXPECT_FALSE(placed.decisions[0].comparison.faster) << placed.guard;
  EXPECT_NE(placed.guard.find("onednn alone kept: op-level placement"), std::string::npos) << placed.guard;
  for (auto const& pg : placed.placement.groups) EXPECT_EQ(placed.placement.backend_of(pg), "onednn");
  auto dp = place(Backends<backends::OneDnn, Slow>{}, g, cpu, db);
  EXPECT_GT(std::ranges::count_if(dp.placement.groups, [&](auto const& pg) { return dp.placement.backend_of(pg) == "slow"; }), 0);
}

TEST(PlacingCpuRuntime, WithSinglesEachGraphKeepsTheSingleBackendWhenItsPlacementMeasuresSlower) {
  auto g = models::build("squeezenet1_1", {.resolution = 32, .weight_seed = 2});
  auto path = fresh_db("placing_guard.json");
  using Rt = PlacingCpuRuntime<Backends<backends::OneDnn, Slow>>;
  {
    placement::CostDatabase db(path, cpu_device_name(CpuRuntime(quick())));  // the name PlacingCpuRuntime reads it under
    record_free_relus(g, db);
    db.save();
  }
  auto count_slow = [&](Rt& rt) {
    auto by_node = rt.node_backends(g);
    return std::ranges::count(by_node, std::string("slow"));
  };
  Rt plain(quick(), {.database = path, .group_budget_ms = 2});
  EXPECT_GT(count_slow(plain), 0);  // the DP, trusting the database, takes every Relu to the slow backend
  Rt guarded(quick(), {.database = path, .group_budget_ms = 2, .singles = {{"onednn alone", {"onednn"}}}});
  EXPECT_EQ(count_slow(guarded), 0);
  EXPECT_EQ(guarded.placed(g).kept, "onednn alone") << guarded.placed(g).guard;
  EXPECT_NE(guarded.kind().find("kept only when faster than the best single backend"), std::string::npos) << guarded.kind();
  EXPECT_THROW(Rt(quick(), {.database = path, .singles = {{"tensorrt alone", {"tensorrt"}}}}), Error);
}

}  // namespace
}  // namespace autograph::cpu
