#pragma once
// CpuGraph: a graph as the CPU runtime holds it once every node has been lowered — where
// each value lives (a static input buffer, a host constant, an arena buffer, or a view into
// another value) and how each kernel is prepared. It no longer depends on the operator set:
// everything after lowering (the memory plan, binding, the stream threads) is compiled once,
// in the autograph_cpu library. Values are PlannedValues, so the memory planner is the one the
// CUDA runtime runs (runtime/plan/memory_plan.hpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/cpu/kernel.hpp"
#include "autograph/graph/value.hpp"
#include "autograph/runtime/plan/memory_plan.hpp"

namespace autograph::cpu {

struct CpuGraph {
  static constexpr std::uint32_t npos = PlannedValue::npos;
  using Kind = PlannedValue::Kind;

  struct Node {
    NodeId id = no_node;
    std::string label;
    bool kernel = false;                         // schedules launch it (kernel_mask); otherwise its outputs are views
    std::vector<std::uint32_t> inputs, outputs;  // value ids
    std::vector<char> constant_inputs;           // per input: a constant (its data is there before any run)
    std::vector<NodeId> preds;                   // the kernels it reads from (KernelDag's edges)
    std::function<void(Preparation&)> prepare;   // the op's Kernel<Op>::prepare (set for kernels)
    bool fallback = false;                       // runs through its reference kernel: allocates on every run
    std::vector<char> takes_channels_last;       // per input: its Kernel may read it channels-last
    bool gives_channels_last = false;            // its Kernel may write its 4-D outputs channels-last
  };
  struct Input {
    NodeId id = no_node;
    std::string label;
    TensorDesc desc;
    std::uint32_t value = npos;
  };

  std::size_t id_bound = 0;
  std::vector<PlannedValue> values;
  std::vector<Layout> layouts;                          // by value id: how it lies in memory (plain unless lowering chose channels-last)
  std::vector<std::vector<std::uint32_t>> node_values;  // by NodeId: the value id of each output port
  std::vector<Node> nodes;                              // in topological order
  std::vector<std::uint32_t> node_index;                // by NodeId: index into nodes, or npos
  std::vector<Input> inputs;                            // ascending node id (Graph::inputs() order)
  std::vector<Tensor> constants;                        // by slot
  std::vector<std::uint32_t> outputs;                   // value ids of the graph outputs

  Node const* node(NodeId id) const { return id < node_index.size() && node_index[id] != npos ? &nodes[node_index[id]] : nullptr; }
  std::uint32_t value(Value v) const { return node_values.at(v.node).at(v.port); }
  /// Nodes that run through their reference kernel ("Resize 'up'"), which allocate on every run.
  std::vector<std::string> fallbacks() const {
    std::vector<std::string> r;
    for (auto const& n : nodes)
      if (n.fallback) r.push_back(n.label);
    return r;
  }
};

}  // namespace autograph::cpu
