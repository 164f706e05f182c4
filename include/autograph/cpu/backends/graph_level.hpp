#pragma once
// Graph-level placement on the CPU runtime (Collage §4.3 on this machine): the evolutionary
// search of placement/graph_level_search.hpp from an op-level placement (place.hpp), each
// individual placed (placed_graph) and run whole on `judge`: CpuRuntime::measure for its
// median, CpuRuntime::compare (interleaved runs, noise margins) for the choice among the
// incumbents (the single-backend placements), the op-level placement and the search's winner
// (placement/measured_choice.hpp: a challenger is kept only when faster beyond noise).
//
//   auto op = cpu::place(All{}, g, profiler, db);
//   auto alone = cpu::place(All{}, g, profiler, db, {.backends = {"onednn"}});
//   auto best = cpu::place_graph_level(All{}, g, op, {{"onednn alone", &alone}}, cpu, {.budget_seconds = 60});
//   cpu.measure(best.graph);
#include <string>
#include <utility>
#include <vector>

#include "autograph/cpu/backends/place.hpp"
#include "autograph/placement/graph_level_search.hpp"

namespace autograph::cpu {

struct GraphLevelOptions {
  std::string target = "onednn";  // the backend groups are offloaded to: the one whose kernels share layouts
  double budget_seconds = 60;     // measuring individuals; the guard's comparisons come after
  std::size_t population = 8, children = 8;
  std::uint64_t seed = 1;
  std::vector<PlacedGraph const*> seeds = {};  // placements of `g` by place() that seed the search without holding the place
};

struct GraphLevelPlaced {
  Graph<PlacedOps> graph;                 // what search.placement runs
  std::vector<std::string> node_backend;  // by node id of `graph`
  placement::GraphSearchResult search;    // search.placement.cost: its median in ms
};

/// The graph-level placement of `g`, starting from `op_level` (place() on `g`); `incumbents`:
/// labelled placements of `g` by place() (the single backends, best first when known): seeds of
/// the search, and the holders the result must beat beyond noise to be kept. @throws Error when the target is not a backend of the placement.
template <class... B, class Policy>
GraphLevelPlaced place_graph_level(Backends<B...> backends, Graph<BuiltinOps> const& g, PlacedGraph const& op_level,
                                   std::vector<std::pair<std::string, PlacedGraph const*>> const& incumbents, BasicCpuRuntime<Policy>& judge,
                                   GraphLevelOptions const& o = {}) {
  auto const& names = op_level.placement.backends;
  auto it = std::ranges::find(names, o.target);
  if (it == names.end()) throw Error("place_graph_level(): no backend called '" + o.target + "' in the placement");
  GraphFacts<BuiltinOps> facts(g);
  std::vector<placement::Incumbent> inc;
  for (auto const& [label, pg] : incumbents) {
    if (pg->placement.backends != names) throw Error("place_graph_level(): incumbent '" + label + "' was placed with other backends");
    inc.push_back({label, pg->placement});
  }
  std::vector<placement::Placement> seeds;
  for (PlacedGraph const* pg : o.seeds) {
    if (pg->placement.backends != names) throw Error("place_graph_level(): a seed was placed with other backends");
    seeds.push_back(pg->placement);
  }
  auto measure = [&](placement::Placement const& p) { return judge.measure(placed_graph(backends, g, p)); };
  auto compare = [&](placement::Placement const& incumbent, placement::Placement const& challenger) {
    return judge.compare(placed_graph(backends, g, incumbent), placed_graph(backends, g, challenger));
  };
  GraphLevelPlaced r;
  r.search = placement::graph_level_search(
      facts, std::span<placement::Candidate const>(op_level.candidate_groups), std::span<double const>(op_level.costs.us), op_level.placement,
      std::span<placement::Incumbent const>(inc), measure, compare,
      {.target = static_cast<std::uint32_t>(it - names.begin()), .budget_seconds = o.budget_seconds, .population = o.population,
       .children = o.children, .seed = o.seed, .seeds = std::move(seeds)});
  r.graph = placed_graph(backends, g, r.search.placement, &r.node_backend);
  return r;
}

}  // namespace autograph::cpu
