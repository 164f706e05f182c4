#pragma once
// Which nodes of a graph run a kernel at inference time.
//
// Weights and everything computed from weights alone (Enlarge of a kernel, Concat of
// kernels, a Transpose of a weight, ...) are folded into constants when the model is
// loaded, so they cost nothing per inference. Sources run no kernel, and neither do views
// (ops that move no bytes and compute nothing, such as Reshape).
#include <span>
#include <vector>

#include "autograph/cost/op_cost_model.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/stats.hpp"
#include "autograph/graph/topological_order.hpp"

namespace autograph {

/// constant[id] is 1 for Weight nodes and for every node whose inputs are all constant.
/// `order`: the live nodes of `g`, producers first (topological_order(g)).
template <class Set>
std::vector<char> constant_folded(Graph<Set> const& g, std::span<NodeId const> order) {
  std::vector<char> constant(g.id_bound(), 0);
  for (NodeId id : order) {
    auto const& n = g[id];
    if (n.template is<Weight>()) {
      constant[id] = 1;
    } else if (!n.inputs.empty()) {
      bool all = true;
      for (Value v : n.inputs) all = all && constant[v.node];
      constant[id] = all;
    }
  }
  return constant;
}

template <class Set>
std::vector<char> constant_folded(Graph<Set> const& g) {
  return constant_folded(g, std::span<NodeId const>(topological_order(g)));
}

/// kernel[id] is 1 for the nodes that launch a kernel at inference: not a source, not
/// constant-folded, not a view.
template <class Set>
std::vector<char> kernel_mask(Graph<Set> const& g) {
  auto constant = constant_folded(g);
  std::vector<char> kernel(g.id_bound(), 0);
  for (NodeId id : g.node_ids()) {
    if (constant[id]) continue;
    auto const& n = g[id];
    auto in = input_descs(g, id);
    kernel[id] = runs_kernel(n.op, in, n.outputs);
  }
  return kernel;
}

}  // namespace autograph
