#pragma once
// Which nodes of a graph run a kernel at inference time.
//
// Weights and everything computed from weights alone (weight_only_nodes(): Enlarge of a
// kernel, Concat of kernels, a Transpose of a weight, ...) are folded into constants when the
// model is loaded, so they cost nothing per inference. Sources run no kernel, and neither do views
// (ops that move no bytes and compute nothing, such as Reshape).
#include <span>
#include <vector>

#include "autograph/cost/op_cost_model.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/stats.hpp"
#include "autograph/graph/topological_order.hpp"
#include "autograph/graph/weight_only.hpp"

namespace autograph {

/// kernel[id] is 1 for the nodes that launch a kernel at inference: not a source, not
/// constant-folded, not a view.
template <class Set>
std::vector<char> kernel_mask(Graph<Set> const& g) {
  auto constant = weight_only_nodes(g);
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
