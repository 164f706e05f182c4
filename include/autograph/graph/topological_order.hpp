#pragma once
#include <cstdint>
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

/// Live nodes in *a* topological order, found in linear time (Kahn's algorithm with the
/// order itself as the work list). For what any producers-first order serves (hashes, costs,
/// longest paths); topological_order() when the order itself is seen (schedules, execution).
/// @throws GraphError naming a node on a cycle.
template <class Set>
std::vector<NodeId> any_topological_order(Graph<Set> const& g) {
  std::vector<std::uint32_t> missing(g.id_bound(), 0);
  std::vector<NodeId> order;
  order.reserve(g.num_nodes());
  for (NodeId id : g.node_ids()) {
    missing[id] = static_cast<std::uint32_t>(g[id].inputs.size());
    if (missing[id] == 0) order.push_back(id);
  }
  for (std::size_t next = 0; next < order.size(); ++next)
    for (Use u : g.users(order[next]))
      if (--missing[u.node] == 0) order.push_back(u.node);
  if (order.size() != g.num_nodes()) {
    for (NodeId id : g.node_ids())
      if (missing[id] != 0) throw GraphError("the graph has a cycle through " + g.label(id));
  }
  return order;
}

}  // namespace autograph
