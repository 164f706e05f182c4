#pragma once
// summed_terms(g): the terms an engine that sums same-shaped values in one go makes of a
// graph's Adds (LaunchModel::term_sum_inputs > 0; IOS's engine, cost/launch.hpp).
//
// IOS's graphs have no binary Add for a node's aggregation: a node's input term lists the
// values to add, and Term::forward sums them in one kernel. This library's graphs chain binary
// Adds instead (RandWire's node sums ((a + b) + c) + d). Such an engine computes none of the
// inner sums: a tree of Adds whose inner sums have no reader but the next Add of the tree is
// one term, its values the tree's leaves. Only the tree's last Add (its root) launches kernels,
// launch::term_kernels() of its values; the inner Adds launch nothing and cost nothing.
//
// A plain sum, the only Add a term holds: an Add of two values of its output's shape and type
// (IOS's Term asserts equal shapes; a broadcast Add, a bias, is no term). An Add is inner when
// it is a plain sum, its one reader is a plain sum, and it is no graph output.
#include <cstddef>
#include <vector>

#include "autograph/graph/graph.hpp"

namespace autograph {

struct SummedTerms {
  /// By NodeId: 1 for an inner Add, whose sum the engine folds into a later Add's term.
  std::vector<char> inner;
  /// By NodeId: for the root of a term of at least three values, its values (the tree's
  /// leaves, left to right); empty for every other node (a lone plain sum is an Add as it is).
  std::vector<std::vector<Value>> values;

  bool is_inner(NodeId id) const { return id < inner.size() && inner[id]; }
  std::vector<Value> const* term(NodeId id) const { return id < values.size() && !values[id].empty() ? &values[id] : nullptr; }
};

/// True when node `id` is an Add of two values of its output's shape and type.
template <class Set>
bool is_plain_sum(Graph<Set> const& g, NodeId id) {
  auto const& n = g[id];
  if (!n.template is<Add>() || n.inputs.size() != 2 || n.outputs.size() != 1) return false;
  for (Value v : n.inputs) {
    TensorDesc const& d = g.desc(v);
    if (d.shape != n.outputs[0].shape || d.dtype != n.outputs[0].dtype) return false;
  }
  return true;
}

/// The terms of `g` (see the header comment).
template <class Set>
SummedTerms summed_terms(Graph<Set> const& g) {
  SummedTerms t;
  t.inner.assign(g.id_bound(), 0);
  t.values.resize(g.id_bound());
  for (NodeId id : g.node_ids()) {
    if (!is_plain_sum(g, id) || g.is_output(id)) continue;
    auto users = g.users(id);
    t.inner[id] = users.size() == 1 && is_plain_sum(g, users[0].node);
  }
  // Leaves of the tree under a root, left to right: an inner Add's one reader is the Add that
  // reads it here, so every inner Add belongs to exactly one tree.
  auto collect = [&](auto&& self, NodeId id, std::vector<Value>& out) -> void {
    for (Value v : g[id].inputs) {
      if (t.is_inner(v.node))
        self(self, v.node, out);
      else
        out.push_back(v);
    }
  };
  for (NodeId id : g.node_ids()) {
    if (t.inner[id] || !is_plain_sum(g, id)) continue;
    std::vector<Value> leaves;
    collect(collect, id, leaves);
    if (leaves.size() > 2) t.values[id] = std::move(leaves);
  }
  return t;
}

}  // namespace autograph
