#pragma once
// NodeGroup: a set of operator nodes that run as one kernel — a matched subgraph g_i of a
// Collage placement (§4.1), or a fusion group of AutoGTCO's DPOF. A group is convex (no path
// leaves it and comes back: GraphFacts::convex), so it can run as one kernel between its
// producers and its readers. Both the placement and the fusion layers build on it.
#include <algorithm>
#include <vector>

#include "autograph/graph/value.hpp"

namespace autograph {

struct NodeGroup {
  std::vector<NodeId> nodes;  // ascending node ids

  bool contains(NodeId n) const { return std::ranges::binary_search(nodes, n); }
  std::size_t size() const { return nodes.size(); }
  friend bool operator==(NodeGroup const&, NodeGroup const&) = default;
};

}  // namespace autograph
