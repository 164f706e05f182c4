#pragma once
// GroupGraph: a candidate group cut out of its graph as a graph of its own, what a backend
// builds or lowers one kernel from (cpu/backends/backend_group.hpp, cuda/backends/backend_group.hpp).
// Moved here from cpu/backends/ when the CUDA runtime got backends: it depends on no runtime.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/node_group.hpp"
#include "autograph/ops/builtin.hpp"

namespace autograph::placement {

/// A group cut out of `g`: its graph (an Input per value it reads from outside, in first-read
/// order over the group's ops in topological order; outputs: its values read outside it or
/// graph outputs, ascending), and those outside values.
struct GroupGraph {
  Graph<BuiltinOps> graph;
  std::vector<Value> inputs, outputs;
};

template <class Set>
GroupGraph group_graph(Graph<Set> const& g, NodeGroup const& group) {
  // The group's ops, producers first (Kahn's algorithm inside the group).
  std::vector<NodeId> order;
  std::vector<std::size_t> missing(group.size(), 0);
  auto at = [&](NodeId n) { return static_cast<std::size_t>(std::ranges::lower_bound(group.nodes, n) - group.nodes.begin()); };
  for (std::size_t i = 0; i < group.size(); ++i)
    for (Value v : g[group.nodes[i]].inputs) missing[i] += group.contains(v.node);
  for (std::size_t i = 0; i < group.size(); ++i)
    if (missing[i] == 0) order.push_back(group.nodes[i]);
  for (std::size_t head = 0; head < order.size(); ++head)
    for (Use u : g.users(order[head]))
      if (group.contains(u.node) && --missing[at(u.node)] == 0) order.push_back(u.node);
  if (order.size() != group.size()) throw GraphError("group_graph(): the group has a cycle");
  GroupGraph r;
  std::vector<std::pair<Value, Value>> map;  // outer -> inner
  auto find = [&](Value v) -> Value const* {
    for (auto const& [o, i] : map)
      if (o == v) return &i;
    return nullptr;
  };
  for (NodeId n : order)  // the boundary inputs first, so their ids ascend in input order
    for (Value v : g[n].inputs)
      if (!group.contains(v.node) && !find(v)) {
        map.emplace_back(v, Value{r.graph.add(AnyOp{Input{g.desc(v), "in" + std::to_string(r.inputs.size())}}, std::span<Value const>{}), 0});
        r.inputs.push_back(v);
      }
  for (NodeId n : order) {
    std::vector<Value> ins;
    for (Value v : g[n].inputs) ins.push_back(*find(v));
    NodeId id = r.graph.add(g[n].op, std::span<Value const>(ins), g[n].name);
    for (std::uint32_t p = 0; p < g[n].outputs.size(); ++p) map.emplace_back(Value{n, p}, Value{id, p});
  }
  std::vector<Value> inner;
  for (NodeId n : group.nodes)
    for (std::uint32_t p = 0; p < g[n].outputs.size(); ++p) {
      Value v{n, p};
      bool escapes = g.is_output(v);
      for (Use u : g.users(n)) escapes = escapes || (!group.contains(u.node) && g[u.node].inputs[u.input] == v);
      if (escapes) {
        r.outputs.push_back(v);
        inner.push_back(*find(v));
      }
    }
  r.graph.set_outputs(std::move(inner));
  return r;
}

#if defined(AUTOGRAPH_PRECOMPILED)
extern template GroupGraph group_graph<BuiltinOps>(Graph<BuiltinOps> const&, NodeGroup const&);  // src/defaults/placement.cpp
#endif

}  // namespace autograph::placement
