#pragma once
// Summary statistics of a graph: what the model table and reports print.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/graph/matching.hpp"
#include "autograph/graph/reachability.hpp"
#include "autograph/graph/topological_order.hpp"

namespace autograph {

/// Operator nodes are the ones that run a kernel (not Input, not Weight).
template <class Set>
bool is_operator_node(Graph<Set> const& g, NodeId id) {
  return !g[id].op.is_source();
}

template <class Set>
std::vector<TensorDesc> input_descs(Graph<Set> const& g, NodeId id) {
  std::vector<TensorDesc> in;
  for (Value v : g[id].inputs) in.push_back(g.desc(v));
  return in;
}

/// True when weight node `id` is a BatchNorm running statistic: every reader is a BatchNorm
/// that reads it as its mean or var (inputs 3 and 4). Such weights are state, not trained
/// parameters (PyTorch keeps them as buffers, Keras as non-trainable weights). Decided by the
/// weight's role in the graph rather than its name, so it holds for imported graphs too.
template <class Set>
bool is_running_statistic(Graph<Set> const& g, NodeId id) {
  auto users = g.users(id);
  return g[id].template is<Weight>() && !users.empty() &&
         std::ranges::all_of(users, [&](Use u) { return g[u.node].template is<BatchNorm>() && u.input >= 3; });
}

/// True when weight node `id` is one a framework counts as a parameter: not a buffer the model
/// declared (Weight::trainable) and not a BatchNorm running statistic.
template <class Set>
bool is_trainable_weight(Graph<Set> const& g, NodeId id) {
  auto const* w = g[id].template get_if<Weight>();
  return w && w->trainable && !is_running_statistic(g, id);
}

/// Elements of the weights a framework counts as parameters: all weights but buffers and
/// BatchNorm running statistics (torchvision's and the papers' "parameters": PyTorch's
/// sum(p.numel() for p in model.parameters())).
template <class Set>
std::int64_t trainable_parameters(Graph<Set> const& g) {
  std::int64_t n = 0;
  for (NodeId id : g.node_ids())
    if (is_trainable_weight(g, id)) n += g[id].template get_if<Weight>()->desc.numel();
  return n;
}

struct GraphStats {
  std::size_t operators = 0;   // nodes that run a kernel
  std::size_t edges = 0;       // edges between operator nodes
  std::int64_t parameters = 0; // elements of all weights
  std::int64_t trainable_parameters = 0;  // parameters less buffers and BatchNorm running statistics (trainable_parameters())
  double macs = 0;             // multiply-accumulates of Conv2D and MatMul (and ops that report macs())
  double flops = 0;
  std::size_t width = 0;          // largest set of operators with no path between any two
  std::size_t critical_path = 0;  // operators on the longest path
};

/// Width by Dilworth's theorem: the smallest chain cover of the reachability order equals the
/// largest antichain, and the cover is (operators − maximum matching).
template <class Set>
std::size_t graph_width(Graph<Set> const& g, Reachability const& reach) {
  std::vector<NodeId> ops;
  for (NodeId id : g.node_ids())
    if (is_operator_node(g, id)) ops.push_back(id);
  std::vector<std::vector<int>> adj(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i)
    for (std::size_t j = 0; j < ops.size(); ++j)
      if (reach.reaches(ops[i], ops[j])) adj[i].push_back(static_cast<int>(j));
  auto m = max_bipartite_matching(static_cast<int>(ops.size()), static_cast<int>(ops.size()), adj);
  return ops.size() - static_cast<std::size_t>(std::ranges::count_if(m, [](int r) { return r >= 0; }));
}

template <class Set>
GraphStats graph_stats(Graph<Set> const& g) {
  GraphStats s;
  std::vector<std::size_t> depth(g.id_bound(), 0);
  for (NodeId id : topological_order(g)) {
    auto const& n = g[id];
    bool is_op = is_operator_node(g, id);
    std::size_t d = 0;
    for (Value in : n.inputs) {
      d = std::max(d, depth[in.node]);
      if (is_op && is_operator_node(g, in.node)) ++s.edges;
    }
    depth[id] = d + (is_op ? 1 : 0);
    s.critical_path = std::max(s.critical_path, depth[id]);
    if (auto const* w = n.template get_if<Weight>()) {
      s.parameters += w->desc.numel();
      if (is_trainable_weight(g, id)) s.trainable_parameters += w->desc.numel();
    }
    if (!is_op) continue;
    ++s.operators;
    auto in = input_descs(g, id);
    s.macs += n.op.macs(in, n.outputs);
    s.flops += n.op.flops(in, n.outputs);
  }
  s.width = graph_width(g, Reachability(g));
  return s;
}

}  // namespace autograph
