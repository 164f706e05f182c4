#pragma once
#include <queue>
#include <vector>

#include "autograph/graph/graph.hpp"

namespace autograph {

/// Live nodes in an order where every node follows its producers (Kahn's algorithm; among
/// ready nodes the smallest id first, so the order is deterministic).
/// @throws GraphError naming a node on a cycle.
template <class Set>
std::vector<NodeId> topological_order(Graph<Set> const& g) {
  std::vector<std::size_t> missing(g.id_bound(), 0);
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
  for (NodeId id : g.node_ids()) {
    missing[id] = g[id].inputs.size();
    if (missing[id] == 0) ready.push(id);
  }
  std::vector<NodeId> order;
  order.reserve(g.num_nodes());
  while (!ready.empty()) {
    NodeId id = ready.top();
    ready.pop();
    order.push_back(id);
    for (Use u : g.users(id))
      if (--missing[u.node] == 0) ready.push(u.node);
  }
  if (order.size() != g.num_nodes()) {
    for (NodeId id : g.node_ids())
      if (missing[id] != 0) throw GraphError("the graph has a cycle through " + g.label(id));
  }
  return order;
}

}  // namespace autograph
