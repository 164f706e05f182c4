#pragma once
// ReferenceExecutor: runs a graph on float32 CPU tensors, exactly per each op's definition
// (the ONNX operator spec where one exists). It is the truth that rewrites and optimized
// graphs are checked against. Tensors are freed after their last reader.
//
// Before running, the executor checks that the tensors it will allocate fit in the memory
// this machine has available (Linux overcommits: an allocation that does not fit often
// succeeds and the process is killed when it is filled); an allocation that fails anyway
// (a kernel's scratch space) becomes an ExecutionError naming the node.
#include <fstream>
#include <map>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "autograph/core/tensor.hpp"
#include "autograph/cost/memory.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"
#include "autograph/runtime/cpu/kernels.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph {

/// Bytes of memory this machine can give a process now: MemAvailable (what Linux can hand out
/// without swapping), else the physical memory; 0 when neither is known.
inline double host_available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    std::istringstream fields(line);
    std::string key;
    double kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0;
}

template <class Set = BuiltinOps>
class ReferenceExecutor {
 public:
  /// Throws ExecutionError naming the largest tensor (node, op, shape, bytes) when the tensors
  /// a run of `g` allocates do not fit in the memory this machine has available; with
  /// `inputs_allocated` false the graph's inputs count too (a caller that has yet to make
  /// them checks before it does). run() checks this itself.
  void check_memory(Graph<Set> const& g, bool inputs_allocated = true) const {
    auto order = topological_order(g);
    check_memory_in_order(g, order, !inputs_allocated);
  }

  /// Runs `g` with inputs given positionally, in the order of g.inputs().
  std::vector<Tensor> run(Graph<Set> const& g, std::span<Tensor const> inputs) const {
    auto ids = g.inputs();
    if (inputs.size() != ids.size())
      throw ExecutionError("the graph has " + std::to_string(ids.size()) + " inputs, " + std::to_string(inputs.size()) + " were given");
    std::map<NodeId, Tensor> bound;
    for (std::size_t i = 0; i < ids.size(); ++i) bound.emplace(ids[i], inputs[i]);
    return execute(g, bound);
  }
  std::vector<Tensor> run(Graph<Set> const& g, std::initializer_list<Tensor> inputs) const {
    return run(g, std::span<Tensor const>(inputs.begin(), inputs.size()));
  }
  /// Runs `g` with inputs bound by the Input nodes' labels.
  std::vector<Tensor> run(Graph<Set> const& g, std::map<std::string, Tensor> const& inputs) const {
    std::map<NodeId, Tensor> bound;
    std::size_t used = 0;
    for (NodeId id : g.inputs()) {
      auto const& label = g[id].template get_if<Input>()->label;
      auto it = inputs.find(label);
      if (it == inputs.end()) throw ExecutionError("no tensor given for graph input '" + label + "'");
      bound.emplace(id, it->second);
      ++used;
    }
    if (used != inputs.size())
      for (auto const& [name, t] : inputs) {
        bool known = false;
        for (NodeId id : g.inputs()) known = known || g[id].template get_if<Input>()->label == name;
        if (!known) throw ExecutionError("'" + name + "' is not an input of the graph");
      }
    return execute(g, bound);
  }

 private:
  std::vector<Tensor> execute(Graph<Set> const& g, std::map<NodeId, Tensor> const& bound) const {
    auto order = topological_order(g);
    check_memory_in_order(g, order, false);
    std::vector<std::vector<Tensor>> values(g.id_bound());
    std::vector<std::size_t> pending(g.id_bound(), 0);  // readers not yet run (+1 per graph output)
    for (NodeId id : order) pending[id] = g.users(id).size();
    for (Value o : g.outputs()) ++pending[o.node];

    for (NodeId id : order) {
      auto const& n = g[id];
      std::vector<Tensor> in;
      in.reserve(n.inputs.size());
      for (Value v : n.inputs) in.push_back(values[v.node][v.port]);
      try {
        values[id] = visit_op<Set>(n.op, [&](auto const& op) { return run_node(g, id, op, in, bound); });
      } catch (std::bad_alloc const&) {
        double bytes = 0;
        std::string shapes;
        for (TensorDesc const& d : n.outputs) {
          bytes += static_cast<double>(float_bytes(d));
          shapes += (shapes.empty() ? "" : ", ") + d.shape.to_string();
        }
        throw ExecutionError(g.label(id) + ": out of memory computing its output " + shapes + " (" + format_bytes(bytes) +
                             " as float32, plus the kernel's scratch space)");
      }
      for (Value v : n.inputs)
        if (--pending[v.node] == 0) values[v.node].clear();
    }
    std::vector<Tensor> out;
    for (Value o : g.outputs()) out.push_back(values[o.node][o.port]);
    return out;
  }

  static std::int64_t float_bytes(TensorDesc const& d) { return d.numel() * static_cast<std::int64_t>(sizeof(float)); }

  static void check_memory_in_order(Graph<Set> const& g, std::span<NodeId const> order, bool count_inputs) {
    // Weights (and inputs, once given) are the caller's tensors; Reshape and Identity share their input's.
    auto storage = [&](NodeId id) {
      auto const& op = g[id].op;
      if (op.is_source()) return count_inputs && op.template is<Input>() ? Storage::resident : Storage::none;
      return op.template is<Reshape>() || op.template is<Identity>() ? Storage::view : Storage::allocated;
    };
    auto footprint = memory_footprint(g, order, storage, float_bytes);
    if (auto why = footprint_excess(g, footprint, host_available_memory_bytes(), "this machine"); !why.empty())
      throw ExecutionError(why + " (the reference executor holds every tensor as float32)");
  }

  template <class Op>
  std::vector<Tensor> run_node(Graph<Set> const& g, NodeId id, Op const& op, std::span<Tensor const> in,
                               std::map<NodeId, Tensor> const& bound) const {
    auto const& n = g[id];
    if constexpr (std::is_same_v<Op, Input>) {
      Tensor const& t = bound.at(id);
      if (t.shape() != op.desc.shape)
        throw ExecutionError("input '" + op.label + "' expects shape " + op.desc.shape.to_string() + ", got " + t.shape().to_string());
      return {t};
    } else if constexpr (std::is_same_v<Op, Weight>) {
      if (!op.data)
        throw ExecutionError(g.label(id) + " " + op.desc.shape.to_string() +
                             " has no data: load the model's weights or call fill_random_weights(graph, seed)");
      return {Tensor(op.desc.shape, op.data)};
    } else {
      static_assert(ReferenceExecutable<Op>,
                    "no reference kernel for this op: specialise autograph::reference::Kernel<YourOp> or give the op an "
                    "evaluate(inputs, output_descs) member");
      try {
        auto out = reference::evaluate(op, in, std::span<TensorDesc const>(n.outputs));
        if (out.size() != n.outputs.size())
          throw ExecutionError("kernel returned " + std::to_string(out.size()) + " outputs, expected " + std::to_string(n.outputs.size()));
        for (std::size_t i = 0; i < out.size(); ++i)
          if (out[i].shape() != n.outputs[i].shape)
            throw ExecutionError("kernel output " + std::to_string(i) + " has shape " + out[i].shape().to_string() + ", expected " +
                                 n.outputs[i].shape.to_string());
        return out;
      } catch (ExecutionError const& e) {
        throw ExecutionError(g.label(id) + ": " + e.what());
      }
    }
  }
};

#if defined(AUTOGRAPH_PRECOMPILED) && !defined(AUTOGRAPH_PRECOMPILED_SOURCE)
// Instantiated once in src/defaults/ (autograph::defaults) for the programs that link it (compile time).
extern template class ReferenceExecutor<BuiltinOps>;
#endif

}  // namespace autograph
