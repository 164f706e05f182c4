#pragma once
// Group: a set of operator nodes that one backend runs as one kernel (Collage §4.1: a matched
// subgraph g_i of a placement), and Candidate: a group with the backend and pattern that
// proposed it. A group is convex (no path leaves it and comes back), so it can run as one
// kernel between its producers and its readers.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "autograph/graph/value.hpp"

namespace autograph::placement {

struct Group {
  std::vector<NodeId> nodes;  // ascending node ids

  bool contains(NodeId n) const { return std::ranges::binary_search(nodes, n); }
  std::size_t size() const { return nodes.size(); }
  friend bool operator==(Group const&, Group const&) = default;
};

/// A group one backend can run, as the pattern generator found it.
struct Candidate {
  Group group;
  std::uint32_t backend = 0;  // index of the backend in the registry
  std::string pattern;        // the pattern or pattern rule that matched ("conv-eltwise-postops")
};

}  // namespace autograph::placement
