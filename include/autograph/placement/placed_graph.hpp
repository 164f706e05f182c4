#pragma once
// The graph a placement runs (Collage §4.1's P(G) made concrete): every group one node of a
// runtime's placed operator set — the op the backend turns the group into, or the runtime's
// group node whose kernel the backend builds — and the graph's sources and constants as they
// were, so schedules, memory plans and runtimes see a graph like any other. Generic over the
// runtime: `group_op` says what node a group becomes (cpu/backends/place.hpp and
// cuda/backends/place.hpp, each with its BackendGroup).
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"
#include "autograph/placement/group_graph.hpp"
#include "autograph/placement/placement.hpp"

namespace autograph::placement {

/// What one group becomes: `op`, and whether it is the group's one op itself (then its outputs
/// are that op's, by port; otherwise they are the group's escaping values, in order).
struct GroupNode {
  AnyOp op;
  bool itself = false;
};

/// `g` run as `p` says. `group_op(placed group, its graph)`: the node it becomes. With
/// `node_backend`, receives the backend of each node of the result by node id (empty for
/// sources and constants).
template <class PlacedSet, class Set>
Graph<PlacedSet> placed_graph(Graph<Set> const& g, Placement const& p, std::function<GroupNode(PlacedGroup const&, GroupGraph const&)> const& group_op,
                              std::vector<std::string>* node_backend = nullptr) {
  Graph<PlacedSet> out;
  std::map<std::pair<NodeId, std::uint32_t>, Value> map;
  auto mapped = [&](Value v) {
    auto it = map.find({v.node, v.port});
    if (it == map.end()) throw Error("placed_graph(): " + g.label(v.node) + " is read before the group computing it (the placement's groups are not in producer order)");
    return it->second;
  };
  std::vector<char> in_group(g.id_bound(), 0);
  for (auto const& pg : p.groups)
    for (NodeId n : pg.group.nodes) in_group[n] = 1;
  for (NodeId n : topological_order(g)) {  // sources and constants: not placed, read by the groups
    if (in_group[n]) continue;
    std::vector<Value> ins;
    for (Value v : g[n].inputs) ins.push_back(mapped(v));
    NodeId id = out.add(g[n].op, std::span<Value const>(ins), g[n].name);
    for (std::uint32_t port = 0; port < g[n].outputs.size(); ++port) map[{n, port}] = Value{id, port};
  }
  for (auto const& pg : p.groups) {
    GroupGraph gg = group_graph(g, pg.group);
    GroupNode node = group_op(pg, gg);
    std::vector<Value> ins;
    for (Value v : gg.inputs) ins.push_back(mapped(v));
    std::string name = g[pg.group.nodes.front()].name;
    if (pg.group.size() > 1) name += "+" + std::to_string(pg.group.size() - 1);
    NodeId id = out.add(std::move(node.op), std::span<Value const>(ins), name);
    for (std::uint32_t i = 0; i < gg.outputs.size(); ++i) map[{gg.outputs[i].node, gg.outputs[i].port}] = Value{id, node.itself ? gg.outputs[i].port : i};
    if (node_backend) {
      node_backend->resize(out.id_bound());
      (*node_backend)[id] = p.backends.at(pg.backend);
    }
  }
  if (node_backend) node_backend->resize(out.id_bound());
  std::vector<Value> outs;
  for (Value v : g.outputs()) outs.push_back(mapped(v));
  out.set_outputs(std::move(outs));
  return out;
}

}  // namespace autograph::placement
