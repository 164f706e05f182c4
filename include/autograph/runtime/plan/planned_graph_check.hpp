#pragma once
// The checks that belong to the plan, not to a device: what every lowering driver must have
// built before a runtime plans memory for a PlannedGraph or runs a schedule on it.
//   - the lowered kernels are exactly the kernel DAG's kernels (so a schedule of the DAG
//     launches lowered kernels only, and a complete one every lowered kernel:
//     validate_schedule), each with the DAG's predecessors;
//   - nodes come in topological order (every value a node reads is written before it);
//   - every view, and every buffer placed into another one, resolves to a root that holds
//     memory (an input, a constant or a buffer), and lies inside it.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/runtime/plan/planned_graph.hpp"

namespace autograph {

/// Checks `g` against the kernel DAG it was lowered with (KernelDag: size(), node(k),
/// preds(k), is_kernel(id)). @throws Error naming the first node or value that is wrong.
template <class NodePayload, class Dag>
void check_planned_graph(PlannedGraph<NodePayload> const& g, Dag const& dag) {
  using Kind = PlannedValue::Kind;
  constexpr auto npos = PlannedValue::npos;
  auto fail = [](std::string const& what) { throw Error("lowered graph: " + what); };
  std::vector<std::uint32_t> index_of_value(g.values.size(), npos);  // index into g.nodes of the value's writer
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    auto const& n = g.nodes[i];
    if (n.id >= g.node_index.size() || g.node_index[n.id] != i) fail(n.label + " is not where node_index says");
    if (n.kernel != dag.is_kernel(n.id))
      fail(n.label + (n.kernel ? " is lowered as a kernel, which the kernel DAG does not launch" : " is a kernel of the DAG, lowered as none"));
    for (std::uint32_t v : n.inputs) {
      if (v >= g.values.size()) fail(n.label + " reads value " + std::to_string(v) + ", which does not exist");
      auto producer = g.values[v].producer;
      bool before = index_of_value[v] != npos || !g.node(producer);  // an input or constant has no lowered node
      if (!before) fail(n.label + " reads value " + std::to_string(v) + " before its writer (nodes are not in topological order)");
    }
    for (std::uint32_t v : n.outputs) {
      if (v >= g.values.size() || g.values[v].producer != n.id) fail(n.label + " writes value " + std::to_string(v) + ", which is not its own");
      index_of_value[v] = i;
    }
  }
  for (std::size_t k = 0; k < dag.size(); ++k) {
    auto const* n = g.node(dag.node(k));
    if (!n) fail("kernel node " + std::to_string(dag.node(k)) + " of the kernel DAG was not lowered");
    std::vector<NodeId> want;
    for (std::uint32_t p : dag.preds(k)) want.push_back(dag.node(p));
    if (n->preds != want) fail(n->label + ": its preds are not the kernel DAG's");
  }
  for (std::uint32_t v = 0; v < g.values.size(); ++v) {
    auto const& value = g.values[v];
    if (value.kind == Kind::empty || value.parent == npos) continue;
    std::uint32_t at = v;
    std::int64_t offset = 0;
    for (std::size_t steps = 0; g.values[at].parent != npos; ++steps) {
      if (steps == g.values.size() || g.values[at].parent >= g.values.size())
        fail("value " + std::to_string(v) + " of node " + std::to_string(value.producer) + " does not resolve to a root");
      offset += g.values[at].offset;
      at = g.values[at].parent;
    }
    auto const& root = g.values[at];
    if (root.kind != Kind::input && root.kind != Kind::constant && root.kind != Kind::buffer)
      fail("value " + std::to_string(v) + " of node " + std::to_string(value.producer) + " resolves to value " + std::to_string(at) +
           ", which holds no memory");
    if (offset < 0 || offset + value.desc.numel() > root.desc.numel())
      fail("value " + std::to_string(v) + " (" + value.desc.to_string() + ") of node " + std::to_string(value.producer) + " at offset " +
           std::to_string(offset) + " runs past its root " + root.desc.to_string());
  }
}

}  // namespace autograph
