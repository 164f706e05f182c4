#pragma once
// Cutting a part out of a graph and putting an optimized version back.
//
// extract(): the nodes of a part become a graph of their own. Every value the part reads from
// outside becomes a boundary input (an Input node named after that value); weights the part reads are copied in (the same shared
// op, so no data is copied). The subgraph's outputs are the part's values that are read
// outside it or are graph outputs.
// stitch(): adds an optimized subgraph's nodes to the full graph, wires its boundary inputs back
// to the outside values, redirects the readers of the old part's outputs, and removes what
// is no longer used.
#include <algorithm>
#include <functional>
#include <unordered_map>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"
#include "autograph/graph/weight_only.hpp"

namespace autograph {

template <class Set>
struct Subgraph {
  Graph<Set> graph;
  std::vector<Value> inputs;   // outside value bound to each boundary input (in g.inputs() order of `graph`)
  std::vector<Value> outputs;  // the part's value behind each subgraph output
};

namespace detail {
inline std::string boundary_input_label(Value v) { return "@" + std::to_string(v.node) + ":" + std::to_string(v.port); }
}  // namespace detail

/// Extracts the part `nodes` (any order; source nodes in it are fine). Weights read by the part
/// are included even when not listed, and so are weight transforms (nodes computing only from
/// weights, such as a folded BatchNorm's scaled kernel): rules look through them to the weights.
template <class Set>
Subgraph<Set> extract(Graph<Set> const& g, std::vector<NodeId> const& nodes) {
  std::vector<char> in_part(g.id_bound(), 0);
  for (NodeId n : nodes) in_part[n] = 1;
  Subgraph<Set> sub;
  std::unordered_map<std::uint64_t, Value> map;  // (node << 32 | port) in g -> value in sub
  auto key = [](Value v) { return (std::uint64_t{v.node} << 32) | v.port; };
  auto const order = topological_order(g);
  auto const weight_only = weight_only_nodes(g, std::span<NodeId const>(order));
  std::function<Value(Value)> bring;  // the value of g as seen inside the part
  bring = [&](Value v) {
    if (auto it = map.find(key(v)); it != map.end()) return it->second;
    Value inside;
    if (in_part[v.node]) throw GraphError("extract(): the part reads " + g.label(v.node) + " before computing it");
    if (weight_only[v.node]) {  // copy the weight or the transform (and what it reads)
      auto const& n = g[v.node];
      std::vector<Value> ins;
      for (Value in : n.inputs) ins.push_back(bring(in));
      NodeId copy = sub.graph.add(n.op, std::span<Value const>(ins), n.name);
      for (std::uint32_t p = 0; p < n.outputs.size(); ++p) map.emplace(key(Value{v.node, p}), Value{copy, p});
      return Value{copy, v.port};
    }
    inside = Value{sub.graph.add(AnyOp{Input{g.desc(v), detail::boundary_input_label(v)}}, std::span<Value const>{}), 0};
    sub.inputs.push_back(v);
    map.emplace(key(v), inside);
    return inside;
  };
  for (NodeId id : order) {
    if (!in_part[id]) continue;
    auto const& n = g[id];
    std::vector<Value> ins;
    for (Value v : n.inputs) ins.push_back(bring(v));
    NodeId nid = sub.graph.add(n.op, std::span<Value const>(ins), n.name);
    for (std::uint32_t p = 0; p < n.outputs.size(); ++p) map.emplace(key(Value{id, p}), Value{nid, p});
  }
  // Outputs: part values read outside the part, or graph outputs.
  std::vector<Value> outs;
  for (NodeId id : nodes) {
    if (g[id].template is<Weight>()) continue;
    for (std::uint32_t p = 0; p < g[id].outputs.size(); ++p) {
      Value v{id, p};
      bool escapes = g.is_output(v);
      for (Use u : g.users(id))
        escapes = escapes || (!in_part[u.node] && g[u.node].inputs[u.input] == v);
      if (escapes) outs.push_back(v);
    }
  }
  std::ranges::sort(outs);
  std::vector<Value> sub_outs;
  for (Value v : outs) sub_outs.push_back(map.at(key(v)));
  sub.graph.set_outputs(sub_outs);
  sub.outputs = outs;
  return sub;
}

/// Replaces the part that `sub` was extracted from by `optimized` (a rewrite of sub.graph with
/// the same boundary inputs and outputs). @post the readers of the part's outputs read the
/// optimized values; with `cleanup`, nodes nothing reads any more are removed. Stitching
/// several parts of one graph: stitch them in reverse topological order with cleanup off, then
/// call remove_dead() once — an optimized later part may stop reading a value that an earlier
/// part's boundary inputs still name.
template <class Set>
void stitch(Graph<Set>& g, Subgraph<Set> const& sub, Graph<Set> const& optimized, bool cleanup = true) {
  if (optimized.outputs().size() != sub.outputs.size())
    throw GraphError("stitch(): the optimized part has " + std::to_string(optimized.outputs().size()) + " outputs, the part had " +
                     std::to_string(sub.outputs.size()));
  Graph<Set> result = g;  // edit a copy (cheap) so a failure leaves g untouched
  std::unordered_map<std::string, Value> boundary;
  for (Value v : sub.inputs) boundary.emplace(detail::boundary_input_label(v), v);
  std::vector<Value> map_node(optimized.id_bound());  // port 0 base per node
  std::vector<NodeId> new_id(optimized.id_bound(), no_node);
  for (NodeId id : topological_order(optimized)) {
    auto const& n = optimized[id];
    if (auto const* in = n.template get_if<Input>()) {
      auto it = boundary.find(in->label);
      if (it == boundary.end()) throw GraphError("stitch(): the optimized part reads an unknown input '" + in->label + "'");
      map_node[id] = it->second;
      continue;
    }
    std::vector<Value> ins;
    for (Value v : n.inputs) {
      if (new_id[v.node] == no_node) {  // a boundary input
        ins.push_back(map_node[v.node]);
      } else {
        ins.push_back(Value{new_id[v.node], v.port});
      }
    }
    new_id[id] = result.add(n.op, std::span<Value const>(ins), n.name);
  }
  for (std::size_t i = 0; i < sub.outputs.size(); ++i) {
    if (!result.contains(sub.outputs[i]))
      throw GraphError("stitch(): the part's output (node " + std::to_string(sub.outputs[i].node) + ") no longer exists in the graph");
    Value o = optimized.outputs()[i];
    Value to = new_id[o.node] == no_node ? map_node[o.node] : Value{new_id[o.node], o.port};
    result.replace_uses(sub.outputs[i], to);
  }
  if (cleanup) result.remove_dead();
  g = std::move(result);
}

}  // namespace autograph
