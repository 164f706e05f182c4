#pragma once
// A group's signature: what a backend's kernel for the group depends on, as text — the ops in
// topological order, each with its attributes and inputs (an outside tensor's type and shape,
// "const" when it is a weight, or "%k" for the output of the group's k-th op), and which ops'
// outputs leave the group. Two groups with one signature run the same kernel, so the cost
// database (placement/cost_database.hpp) measures each signature once per backend and device; the text
// is the key itself, so keys never collide:
//   "Conv2D{s1,1 p1,1,1,1}(f32[1,64,56,56],const f32[64,64,3,3]); Relu{}(%0) -> %1"
#include <algorithm>
#include <string>
#include <vector>

#include "autograph/graph/graph_facts.hpp"
#include "autograph/graph/node_group.hpp"

namespace autograph {

template <class Set>
std::string group_signature(GraphFacts<Set> const& facts, NodeGroup const& group) {
  auto const& g = facts.graph();
  std::vector<NodeId> order = group.nodes;
  std::ranges::sort(order, [&](NodeId a, NodeId b) { return facts.position(a) < facts.position(b); });
  auto local = [&](NodeId n) { return static_cast<std::size_t>(std::ranges::find(order, n) - order.begin()); };
  std::string s, outs;
  for (std::size_t k = 0; k < order.size(); ++k) {
    auto const& node = g[order[k]];
    s += (k ? "; " : "") + std::string(node.op.name()) + "{" + node.op.attributes() + "}(";
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      Value v = node.inputs[i];
      s += i ? "," : "";
      if (group.contains(v.node)) {
        s += "%" + std::to_string(local(v.node)) + (v.port ? ":" + std::to_string(v.port) : "");
      } else {
        s += (facts.constant(v.node) ? "const " : "") + g.desc(v).to_string();
      }
    }
    s += ")";
    bool escapes = g.is_output(order[k]);
    for (Use u : g.users(order[k])) escapes = escapes || !group.contains(u.node);
    if (escapes) outs += (outs.empty() ? "" : ",") + ("%" + std::to_string(k));
  }
  return s + " -> " + outs;
}

#if defined(AUTOGRAPH_PRECOMPILED)
extern template std::string group_signature<BuiltinOps>(GraphFacts<BuiltinOps> const&, NodeGroup const&);  // src/defaults/group_signature.cpp
#endif

}  // namespace autograph
