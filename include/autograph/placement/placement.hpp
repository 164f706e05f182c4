#pragma once
// Placement: the result of a placement optimizer (Collage §4.1's P(G)): the graph covered by
// disjoint groups, each run by one backend, in an order where every group follows the groups
// it reads from.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "autograph/placement/candidate.hpp"

namespace autograph::placement {

struct PlacedGroup {
  NodeGroup group;
  std::uint32_t backend = 0;  // index into Placement::backends
  std::string pattern;        // the pattern or rule that proposed the group
  double cost = 0;            // the measurer's cost of the group on its backend (ms)
};

struct Placement {
  std::vector<std::string> backends;  // names, by backend index
  std::vector<PlacedGroup> groups;    // producers first
  double cost = 0;                    // Eq. 3: the sum of the groups' costs plus epsilon per group, plus the conversions
  std::size_t conversions = 0;        // layout conversions charged (placement/layout_model.hpp), each at its edge
  std::size_t states = 0;             // DP states settled (sets of placed nodes, with the values kept in the fast layout)
  std::size_t states_cut = 0;         // states the beam dropped (DpOptions::beam); 0: `cost` is Eq. 3's optimum
  std::size_t beam = 0;               // the beam it ran with (states per number of placed nodes; 0: none)
  double seconds = 0;                 // time the DP took, measuring excluded where the cost was cached

  /// The group that runs `n`, or nullptr for nodes no backend places (sources, constants).
  PlacedGroup const* group_of(NodeId n) const {
    for (auto const& pg : groups)
      if (pg.group.contains(n)) return &pg;
    return nullptr;
  }
  std::string const& backend_of(PlacedGroup const& pg) const { return backends.at(pg.backend); }
};

/// Whether `a` and `b` run the same groups on the same backends (by name), whatever their order
/// and costs: two searches that arrive at one placement.
inline bool same_placement(Placement const& a, Placement const& b) {
  auto key = [](Placement const& p) {
    std::vector<std::pair<std::vector<NodeId>, std::string>> k;
    for (auto const& pg : p.groups) {
      auto nodes = pg.group.nodes;
      std::ranges::sort(nodes);
      k.emplace_back(std::move(nodes), p.backends.at(pg.backend));
    }
    std::ranges::sort(k);
    return k;
  };
  return a.groups.size() == b.groups.size() && key(a) == key(b);
}

}  // namespace autograph::placement
