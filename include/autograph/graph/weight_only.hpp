#pragma once
// Which nodes compute only from weights: a Weight, or an op whose inputs all compute only from
// weights (an Enlarge of a kernel, a Concat of kernels, a folded BatchNorm's scaled kernel). No
// graph input reaches them, so they are constants: cost models count them as folded when the
// model loads, rules do not match inside them, and extract() copies them into the parts that
// read them. Other sources (Input) are not weights; an op without inputs that is not a Weight
// is not weight-only.
#include <span>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"

namespace autograph {

/// weight_only[id] is 1 for the nodes that compute only from weights (0 for removed ids).
/// `order`: the live nodes of `g`, producers first (topological_order(g)). O(nodes + edges).
template <class Set>
std::vector<char> weight_only_nodes(Graph<Set> const& g, std::span<NodeId const> order) {
  std::vector<char> weight_only(g.id_bound(), 0);
  for (NodeId id : order) {
    auto const& n = g[id];
    if (n.inputs.empty()) {
      weight_only[id] = n.template is<Weight>();
    } else {
      bool all = true;
      for (Value v : n.inputs) all = all && weight_only[v.node];
      weight_only[id] = all;
    }
  }
  return weight_only;
}

template <class Set>
std::vector<char> weight_only_nodes(Graph<Set> const& g) {
  return weight_only_nodes(g, std::span<NodeId const>(topological_order(g)));
}

/// True when `node` computes only from weights. Visits only the node's ancestors: for one
/// node; weight_only_nodes() answers for all at once.
template <class Set>
bool is_weight_only(Graph<Set> const& g, NodeId node) {
  std::vector<NodeId> stack{node};
  std::vector<char> seen(g.id_bound(), 0);
  while (!stack.empty()) {
    NodeId n = stack.back();
    stack.pop_back();
    if (seen[n]) continue;
    seen[n] = 1;
    auto const& nd = g[n];
    if (nd.inputs.empty()) {
      if (!nd.template is<Weight>()) return false;
      continue;
    }
    for (Value in : nd.inputs) stack.push_back(in.node);
  }
  return true;
}

}  // namespace autograph
