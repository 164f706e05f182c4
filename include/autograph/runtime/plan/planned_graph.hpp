#pragma once
// PlannedGraph: a graph as a runtime holds it once every node has been lowered — the part of
// the description that does not depend on the device, shared by the CPU runtime (CpuGraph)
// and the CUDA runtime (cuda::LoweredGraph), so that both plan memory for, check schedules
// against and run the same plan:
//   values       where each value lives (PlannedValue: a static input buffer, a constant, an
//                arena buffer, a view into another value, or nothing);
//   nodes        every node that is neither an input nor a constant, in topological order,
//                each with the value ids it reads and writes and the kernels it reads from;
//   inputs, outputs.
// A runtime adds what its devices need: per node (the NodePayload every PlannedNode derives
// from: CPU preparation, CUDA launches) and per graph (by deriving from PlannedGraph).
// The lowering drivers (cpu/lower.hpp, cuda/lower.hpp) build it with the add_* members, in
// topological order, so that the same graph gets the same value ids on both runtimes.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/core/tensor_desc.hpp"
#include "autograph/graph/value.hpp"
#include "autograph/runtime/plan/memory_plan.hpp"

namespace autograph {

/// The alignment a pointer `offset` elements past one aligned to `base` bytes keeps.
constexpr std::size_t offset_alignment(std::size_t base, std::int64_t offset) {
  if (offset == 0) return base;
  auto bytes = static_cast<std::size_t>(offset) * sizeof(float);
  return std::min(base, bytes & (~bytes + 1));  // the lowest set bit
}

/// One lowered node: what every runtime knows of it, plus the runtime's own NodePayload.
template <class NodePayload>
struct PlannedNode : NodePayload {
  NodeId id = no_node;
  std::string label;
  bool kernel = false;                         // schedules launch it (kernel_mask); otherwise its outputs are views or empty
  std::vector<std::uint32_t> inputs, outputs;  // value ids
  std::vector<NodeId> preds;                   // the kernels it reads from (KernelDag's edges)
};

/// A graph input: its static buffer is values[value] (slot: index into PlannedGraph::inputs).
struct PlannedInput {
  NodeId id = no_node;
  std::string label;
  TensorDesc desc;
  std::uint32_t value = PlannedValue::npos;
};

template <class NodePayload>
struct PlannedGraph {
  static constexpr std::uint32_t npos = PlannedValue::npos;
  using Kind = PlannedValue::Kind;
  using Node = PlannedNode<NodePayload>;
  using Input = PlannedInput;

  std::size_t id_bound = 0;
  std::vector<PlannedValue> values;
  std::vector<std::vector<std::uint32_t>> node_values;  // by NodeId: the value id of each output port
  std::vector<Node> nodes;                              // in topological order
  std::vector<std::uint32_t> node_index;                // by NodeId: index into nodes, or npos
  std::vector<Input> inputs;                            // ascending node id (Graph::inputs() order)
  std::vector<std::uint32_t> outputs;                   // value ids of the graph outputs
  std::uint32_t constant_slots = 0;                     // constants have slots [0, constant_slots)

  // ---- reading ----------------------------------------------------------------------------

  Node const* node(NodeId id) const { return id < node_index.size() && node_index[id] != npos ? &nodes[node_index[id]] : nullptr; }
  /// The value id of output `v`. @throws std::out_of_range when v's node was not lowered.
  std::uint32_t value(Value v) const { return node_values.at(v.node).at(v.port); }
  /// The value v ultimately lives in, and v's element offset inside it.
  std::pair<std::uint32_t, std::int64_t> root(std::uint32_t v) const { return root_of(values, v); }

  // ---- building (the lowering drivers, in topological order) ------------------------------

  /// Starts an empty description of a graph whose node ids are below `bound`.
  void reset(std::size_t bound) {
    *this = PlannedGraph{};
    id_bound = bound;
    node_values.resize(bound);
    node_index.assign(bound, npos);
  }
  /// Appends output port node_values[producer].size() of `producer`: `kind`, or empty when it
  /// has no elements.
  std::uint32_t add_value(NodeId producer, TensorDesc const& desc, Kind kind) {
    PlannedValue v;
    v.kind = desc.numel() == 0 ? Kind::empty : kind;
    v.desc = desc;
    v.producer = producer;
    auto id = static_cast<std::uint32_t>(values.size());
    values.push_back(v);
    node_values.at(producer).push_back(id);
    return id;
  }
  /// A graph input (its only output), with the next input slot.
  std::uint32_t add_input(NodeId id, std::string label, TensorDesc const& desc) {
    auto v = add_value(id, desc, Kind::input);
    values[v].slot = static_cast<std::uint32_t>(inputs.size());
    inputs.push_back({id, std::move(label), desc, v});
    return v;
  }
  /// The next output port of a constant node; `read` says whether a run reads it
  /// (constant_values_read), else it is empty. A read constant with elements gets the next
  /// constant slot, which the runtime fills with the value.
  std::uint32_t add_constant(NodeId id, TensorDesc const& desc, bool read) {
    auto v = add_value(id, desc, read ? Kind::constant : Kind::empty);
    if (values[v].kind == Kind::constant) values[v].slot = constant_slots++;
    return v;
  }
  /// Makes value `v` elements [offset, offset + numel) of value `parent`.
  /// @throws Error when they run past the parent.
  void make_view(std::uint32_t v, std::uint32_t parent, std::int64_t offset) {
    auto& value = values.at(v);
    if (value.kind == Kind::empty) return;
    if (offset < 0 || offset + value.desc.numel() > values.at(parent).desc.numel())
      throw Error("value " + std::to_string(v) + " (" + value.desc.to_string() + ") as a view of value " + std::to_string(parent) + " (" +
                  values[parent].desc.to_string() + ") at offset " + std::to_string(offset) + " runs past it");
    value.kind = Kind::view;
    value.parent = parent;
    value.offset = offset;
    value.alignment = offset_alignment(values[parent].alignment, offset);
  }
  /// Appends a lowered node (after its outputs' values).
  Node& add_node(Node n) {
    node_index.at(n.id) = static_cast<std::uint32_t>(nodes.size());
    return nodes.emplace_back(std::move(n));
  }
  /// Sets every node's preds from the kernel DAG (KernelDag: size(), node(k), preds(k)).
  /// @throws Error for a kernel that was not lowered.
  template <class Dag>
  void set_preds(Dag const& dag) {
    for (std::size_t k = 0; k < dag.size(); ++k) {
      NodeId id = dag.node(k);
      if (!node(id)) throw Error("kernel node " + std::to_string(id) + " was not lowered");
      std::vector<NodeId> preds;
      for (std::uint32_t p : dag.preds(k)) preds.push_back(dag.node(p));
      nodes[node_index[id]].preds = std::move(preds);
    }
  }
  /// Records the graph outputs. @throws Error for an output that was not lowered.
  void set_outputs(std::span<Value const> graph_outputs) {
    outputs.clear();
    for (Value v : graph_outputs) {
      if (v.node >= node_values.size() || v.port >= node_values[v.node].size())
        throw Error("graph output (node " + std::to_string(v.node) + " port " + std::to_string(v.port) + ") was not lowered");
      outputs.push_back(node_values[v.node][v.port]);
    }
  }
};

}  // namespace autograph
