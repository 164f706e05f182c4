#pragma once
// Full consistency check of a graph: every input refers to a live value, inferred outputs
// match the stored descriptors, reader lists agree with inputs, graph outputs exist, and
// there is no cycle. Edits keep these invariants; validate() proves it in tests and guards
// graphs that come from outside (importers, user code).
#include <algorithm>

#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"

namespace autograph {

/// @throws GraphError / ShapeError naming the first problem found.
template <class Set>
void validate(Graph<Set> const& g) {
  std::size_t edges = 0;
  for (NodeId id : g.node_ids()) {
    auto const& n = g[id];
    std::vector<TensorDesc> in;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      Value v = n.inputs[i];
      if (!g.contains(v))
        throw GraphError(g.label(id) + ": input " + std::to_string(i) + " is dangling (node " + std::to_string(v.node) + " port " +
                         std::to_string(v.port) + ")");
      in.push_back(g.desc(v));
      auto readers = g.users(v.node);
      if (std::ranges::find(readers, Use{id, static_cast<std::uint32_t>(i)}) == readers.end())
        throw GraphError(g.label(id) + ": input " + std::to_string(i) + " is missing from " + g.label(v.node) + "'s readers");
      ++edges;
    }
    auto out = n.op.infer(in);
    if (out != n.outputs) throw GraphError(g.label(id) + ": stored output descriptors differ from what its inputs infer");
  }
  std::size_t reader_entries = 0;
  for (NodeId id : g.node_ids()) {
    for (Use u : g.users(id)) {
      if (!g.contains(u.node) || u.input >= g[u.node].inputs.size() || g[u.node].inputs[u.input].node != id)
        throw GraphError(g.label(id) + ": reader list names node " + std::to_string(u.node) + " input " + std::to_string(u.input) +
                         ", which does not read it");
    }
    reader_entries += g.users(id).size();
  }
  if (reader_entries != edges) throw GraphError("reader lists hold " + std::to_string(reader_entries) + " entries for " + std::to_string(edges) + " edges");
  for (std::size_t i = 0; i < g.outputs().size(); ++i)
    if (!g.contains(g.outputs()[i])) throw GraphError("graph output " + std::to_string(i) + " is dangling");
  topological_order(g);  // throws on a cycle
}

}  // namespace autograph
