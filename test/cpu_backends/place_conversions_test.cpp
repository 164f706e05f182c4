// The op-level DP's layout conversions are the ones the CPU runtime runs: NASNet-A Mobile placed
// on oneDNN, BLAS and our kernels under random group costs (so placements mix layouts), the
// conversions the DP charged equal the plain ends of channels-last kernels in the lowered
// placed graph (cpu/layout_conversions.hpp). Also prints what charging each plain kernel its own
// 4-D tensors (the second version) would have counted for the same placement.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <random>

#include <autograph/cpu/backends/blas.hpp>
#include <autograph/cpu/backends/onednn.hpp>
#include <autograph/cpu/backends/own_kernels.hpp>
#include <autograph/cpu/backends/place.hpp>
#include <autograph/cpu/layout_conversions.hpp>
#include <autograph/models/zoo.hpp>

namespace autograph::cpu {
namespace {

using All = Backends<backends::OneDnn, backends::Blas, backends::OwnKernels>;

/// Every 4-D activation shape of `g`, each conversion costing `us`.
std::map<std::string, double> every_reorder(GraphFacts<BuiltinOps> const& facts, double us) {
  std::map<std::string, double> r;
  auto const& g = facts.graph();
  for (NodeId n : facts.placed_nodes()) {
    for (Value in : g[n].inputs) r[g.desc(in).shape.to_string()] = us;
    for (auto const& d : g[n].outputs) r[d.shape.to_string()] = us;
  }
  return r;
}

/// What the second version charged a placement: per group whose kernel does not take or give
/// channels-last, one reorder per 4-D activation it reads or writes.
std::size_t per_group_charges(GraphFacts<BuiltinOps> const& facts, placement::Placement const& p, placement::LayoutModel const& m) {
  auto const& g = facts.graph();
  std::size_t r = 0;
  for (auto const& pg : p.groups) {
    placement::Candidate c{pg.group, pg.backend, pg.pattern};
    auto l = m.layout(c);
    GroupGraph gg = group_graph(g, pg.group);
    for (Value v : gg.inputs)
      if (m.conversion(v) > 0 && std::ranges::find(l.takes_fast, v) == l.takes_fast.end()) ++r;
    for (Value v : gg.outputs)
      if (m.conversion(v) > 0 && std::ranges::find(l.gives_fast, v) == l.gives_fast.end()) ++r;
  }
  return r;
}

TEST(PlaceConversions, TheDpChargesWhatTheLoweredPlacementConverts) {
  auto g = models::build("nasnet_a_mobile", {.resolution = 32});
  GraphFacts<BuiltinOps> facts(g);
  auto candidates = placement::generate_candidates(facts, All::registry<BuiltinOps>()).candidates;
  auto reorders = every_reorder(facts, 3.0);
  auto model = channels_last_model(All{}, facts, reorders);
  std::vector<std::string> names{"onednn", "blas", "own"};
  std::mt19937 rng(5);
  for (int trial = 0; trial < 4; ++trial) {
    std::uniform_real_distribution<double> u(1.0, 10.0);
    std::vector<double> cost(candidates.size());
    for (auto& c : cost) c = u(rng);
    auto by_index = [&](placement::Candidate const& c) { return cost[static_cast<std::size_t>(&c - candidates.data())]; };
    auto p = placement::op_level_dp(facts, std::span<placement::Candidate const>(candidates), names, by_index, {.layout = model});
    std::map<std::string, std::size_t> ops;
    for (auto const& pg : p.groups) ops[p.backend_of(pg)] += pg.group.size();
    ASSERT_GT(ops["own"], 0u) << "trial " << trial;  // the placement mixes backends
    ASSERT_GT(ops["onednn"], 0u) << "trial " << trial;
    auto placed = placed_graph(All{}, g, p);
    auto lowered = lower(placed, {.random_weights = 1});
    std::size_t runs = layout_conversions(*lowered);
    std::cout << "trial " << trial << ": own " << ops["own"] << " ops, blas " << ops["blas"] << ", onednn " << ops["onednn"] << "; the DP charged "
              << p.conversions << " conversions, the lowered placement converts " << runs << ", charging plain kernels per group would count "
              << per_group_charges(facts, p, model) << "\n";
    EXPECT_EQ(p.conversions, runs) << "trial " << trial;
  }
}

}  // namespace
}  // namespace autograph::cpu
