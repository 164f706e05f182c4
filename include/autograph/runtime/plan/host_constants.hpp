#pragma once
// The constants of a graph as a runtime sees them: weights, and the nodes computed from
// weights alone (constant folding, graph/weight_only.hpp), evaluated once on the host with the
// reference kernels. Shared by the CUDA runtime (which uploads them) and the CPU runtime.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "autograph/core/hash.hpp"
#include "autograph/core/tensor.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/runtime/cpu/kernels.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph {

/// The constant outputs a run reads (`constant`: weight_only_nodes(g)): those with a
/// non-constant reader, and graph outputs. Only these are evaluated and kept by a runtime.
template <class Set>
std::set<Value> constant_values_read(Graph<Set> const& g, std::span<NodeId const> order, std::vector<char> const& constant) {
  std::set<Value> read;
  for (NodeId id : order)
    if (!constant[id])
      for (Value v : g[id].inputs)
        if (constant[v.node]) read.insert(v);
  for (Value v : g.outputs())
    if (constant[v.node]) read.insert(v);
  return read;
}

/// Host values of the constant nodes of a graph, computed on demand with the reference
/// kernels, and keys that identify their contents.
template <class Set>
class HostConstants {
 public:
  /// `runtime` names the runtime in errors ("the CPU runtime").
  HostConstants(Graph<Set> const& g, std::optional<std::uint64_t> seed, std::string runtime)
      : g_(g), seed_(seed), runtime_(std::move(runtime)) {}

  /// Identifies the contents of node id's outputs: the weight's storage (or its id and the
  /// seed for a shape-only weight), else the op and its inputs' keys.
  std::uint64_t key(NodeId id) {
    if (auto it = keys_.find(id); it != keys_.end()) return it->second;
    auto const& n = g_[id];
    std::uint64_t k = n.op.hash();
    if (auto const* w = n.template get_if<Weight>(); w && !w->data) k = hash_combine(k, hash_value(seed_.value_or(0)));
    for (Value v : n.inputs) k = hash_combine(hash_combine(k, key(v.node)), v.port);
    keys_.emplace(id, k);
    return k;
  }
  /// The host storage of every weight with data that node id is computed from.
  void leaves(NodeId id, std::vector<std::shared_ptr<void const>>& out) {
    std::set<NodeId> seen;
    std::vector<NodeId> stack{id};
    while (!stack.empty()) {
      NodeId n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second) continue;
      if (auto const* w = g_[n].template get_if<Weight>(); w && w->data) out.push_back(w->data);
      for (Value v : g_[n].inputs) stack.push_back(v.node);
    }
  }
  Tensor value(Value v) { return outputs(v.node).at(v.port); }

 private:
  std::vector<Tensor> const& outputs(NodeId id) {
    if (auto it = values_.find(id); it != values_.end()) return it->second;
    auto const& n = g_[id];
    std::vector<Tensor> in;
    for (Value v : n.inputs) in.push_back(outputs(v.node).at(v.port));
    std::vector<Tensor> out = visit_op<Set>(n.op, [&](auto const& op) -> std::vector<Tensor> {
      using Op = std::remove_cvref_t<decltype(op)>;
      if constexpr (std::is_same_v<Op, Weight>) {
        if (op.data) return {Tensor(op.desc.shape, op.data)};
        if (!seed_)
          throw ExecutionError(g_.label(id) + " " + op.desc.shape.to_string() +
                               " has no data: load the model's weights or call fill_random_weights(graph, seed)");
        return {random_weight_data(op, *seed_)};
      } else if constexpr (is_source_op<Op>) {
        throw ExecutionError(g_.label(id) + ": " + runtime_ + " cannot evaluate this source operator");
      } else if constexpr (ReferenceExecutable<Op>) {
        try {
          return reference::evaluate(op, in, std::span<TensorDesc const>(n.outputs));
        } catch (Error const& e) {
          throw ExecutionError(g_.label(id) + " (folding constants on the host): " + e.what());
        }
      } else {
        throw ExecutionError(g_.label(id) + " is computed from weights only and is folded on the host, which needs a reference kernel "
                             "(specialise autograph::reference::Kernel)");
      }
    });
    return values_.emplace(id, std::move(out)).first->second;
  }

  Graph<Set> const& g_;
  std::optional<std::uint64_t> seed_;
  std::string runtime_;
  std::map<NodeId, std::uint64_t> keys_;
  std::map<NodeId, std::vector<Tensor>> values_;
};


}  // namespace autograph
