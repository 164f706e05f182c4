#pragma once
// A graph with a cost per node, and the two sums graph cost policies are made of:
// the total (every kernel once) and the critical path (the longest path by cost).
#include <algorithm>
#include <concepts>
#include <span>
#include <vector>

#include "autograph/cost/inference_kernels.hpp"
#include "autograph/cost/op_cost_model.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"

namespace autograph {

/// A graph and the cost of each of its nodes in microseconds (0 for nodes that run no
/// kernel at inference: sources, views, constant-folded weight transforms).
template <class Set>
struct NodeCosts {
  Graph<Set> const* graph = nullptr;
  std::vector<double> us;     // indexed by NodeId
  std::vector<NodeId> order;  // a topological order of *graph when known (else found on demand)
};

/// Costs every node of `g` with `model`. One topological order serves the constant folding
/// and the critical path: a search costs thousands of candidate graphs.
template <class Set, OpCostModel M>
NodeCosts<Set> node_costs(Graph<Set> const& g, M const& model) {
  NodeCosts<Set> c{&g, std::vector<double>(g.id_bound(), 0.0), any_topological_order(g)};
  auto constant = weight_only_nodes(g, std::span<NodeId const>(c.order));
  std::vector<TensorDesc> in;  // reused: one allocation per graph, not per node
  for (NodeId id : c.order) {
    if (constant[id]) continue;
    auto const& n = g[id];
    in.clear();
    for (Value v : n.inputs) in.push_back(g.desc(v));
    if (runs_kernel(n.op, in, n.outputs)) c.us[id] = model.estimate(n.op, in, n.outputs).us;
  }
  return c;
}

/// Σ cost over every node (TASO's and MetaFlow's graph cost).
template <class Set>
double total_cost(NodeCosts<Set> const& c) {
  double t = 0;
  for (NodeId id : c.graph->node_ids()) t += c.us[id];
  return t;
}

/// The longest path through the graph, each node weighing its cost.
template <class Set>
double critical_path_cost(NodeCosts<Set> const& c) {
  auto const& g = *c.graph;
  std::vector<double> finish(g.id_bound(), 0.0);
  double longest = 0;
  std::vector<NodeId> found;
  std::span<NodeId const> order = c.order;
  if (order.empty()) order = found = any_topological_order(g);
  for (NodeId id : order) {
    double start = 0;
    for (Value v : g[id].inputs) start = std::max(start, finish[v.node]);
    finish[id] = start + c.us[id];
    longest = std::max(longest, finish[id]);
  }
  return longest;
}

/// What a graph cost policy reads: a graph whose nodes have costs, with total_cost and
/// critical_path_cost found for it.
template <class G>
concept CostedGraph = requires(G const& g) {
  { total_cost(g) } -> std::convertible_to<double>;
  { critical_path_cost(g) } -> std::convertible_to<double>;
};

}  // namespace autograph
