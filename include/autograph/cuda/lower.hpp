#pragma once
// lower(graph): the only part of the CUDA runtime that is generic over the operator set.
// Visits every node once:
//   Input               -> a static device buffer (inputs are copied there before each replay)
//   Weight, and nodes computed from weights alone (kernel_mask's constant folding)
//                       -> evaluated on the host with the reference kernels and uploaded,
//                          once per contents (ConstantCache)
//   every other node    -> cuda::Kernel<Op>::lower: views, workspaces, launches
// The result is set-independent (LoweredGraph); planning, capture and replay take it from there.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "autograph/cost/inference_kernels.hpp"
#include "autograph/cuda/kernel.hpp"
#include "autograph/cuda/lowered_graph.hpp"
#include "autograph/cuda/ops.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/runtime/cpu/kernels.hpp"
#include "autograph/runtime/reference_kernel.hpp"
#include "autograph/schedule/kernel_dag.hpp"

namespace autograph::cuda {

namespace detail {

/// Host values of the constant nodes of a graph, computed on demand with the reference
/// kernels, and keys that identify their contents.
template <class Set>
class HostConstants {
 public:
  HostConstants(Graph<Set> const& g, std::optional<std::uint64_t> seed) : g_(g), seed_(seed) {}

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
        throw ExecutionError(g_.label(id) + ": the CUDA runtime cannot evaluate this source operator");
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
  std::map<NodeId, std::uint64_t> keys_;
  std::map<NodeId, std::vector<Tensor>> values_;
};

}  // namespace detail

/// Lowers `g` for `device`. Constants are uploaded (through `cache` when given).
/// With no device, lowers for planning only: views, in-place concatenation, workspaces and
/// launches are decided and nothing is allocated (host code can plan memory and check a
/// schedule without a GPU); ops that need cuDNN or cuBLAS then throw CudaError.
/// @throws CudaError for an unsupported node (before anything is launched), ExecutionError
/// for a weight without data when options.random_weights is unset.
template <class Set>
std::shared_ptr<LoweredGraph const> lower(Graph<Set> const& g, Device* device, LowerOptions const& options = {},
                                          ConstantCache* cache = nullptr) {
  auto order = topological_order(g);
  auto constant = weight_only_nodes(g);
  auto kernel = kernel_mask(g);

  // The constant outputs the device reads: those of a non-constant reader or a graph output.
  std::set<Value> needed;
  for (NodeId id : order)
    if (!constant[id])
      for (Value v : g[id].inputs)
        if (constant[v.node]) needed.insert(v);
  for (Value v : g.outputs())
    if (constant[v.node]) needed.insert(v);

  detail::HostConstants<Set> host(g, options.random_weights);
  detail::LoweringBuilder b(device, options, cache, g.id_bound());
  for (NodeId id : order) {
    auto const& n = g[id];
    if (auto const* in = n.template get_if<Input>()) {
      b.add_input(id, in->label, in->desc);
      continue;
    }
    if (constant[id]) {
      for (std::uint32_t port = 0; port < n.outputs.size(); ++port) {
        Value v{id, port};
        if (!needed.contains(v)) continue;
        std::vector<std::shared_ptr<void const>> keepalive;
        host.leaves(id, keepalive);
        b.add_constant(id, port, n.outputs[port], hash_combine(host.key(id), port), [&] { return host.value(v); }, std::move(keepalive));
      }
      continue;
    }
    std::string label = g.label(id);
    visit_op<Set>(n.op, [&](auto const& op) {
      using Op = std::remove_cvref_t<decltype(op)>;
      static_assert(CudaExecutable<Op>,
                    "no CUDA kernel for this op: specialise autograph::cuda::Kernel<YourOp> with "
                    "static void lower(YourOp const&, autograph::cuda::Lowering&) (see autograph/cuda/kernel.hpp)");
      if constexpr (is_source_op<Op>) {
        throw CudaError(label + ": unsupported on the CUDA runtime: a source operator other than Input and Weight");
      } else {
        if (std::optional<Lowering> l = b.begin_node(id, label, kernel[id] != 0, n.inputs, n.outputs)) {
          try {
            Kernel<Op>::lower(op, *l);
          } catch (CudaError const& e) {  // name the node unless the message already does
            if (std::string_view(e.what()).starts_with(label)) throw;
            throw CudaError(label + ": " + e.what());
          }
          b.end_node();
        }
      }
    });
  }
  KernelDag dag(g, kernel);
  for (std::size_t k = 0; k < dag.size(); ++k) {
    std::vector<NodeId> preds;
    for (std::uint32_t p : dag.preds(k)) preds.push_back(dag.node(p));
    b.set_preds(dag.node(k), std::move(preds));
  }
  b.set_outputs(g.outputs());
  return b.finish();
}

}  // namespace autograph::cuda

namespace autograph::cuda {
// Compiled once in the autograph_cuda library (src/cuda/lower_builtin.cpp) for the default
// operator set; every program using the CUDA runtime links that library anyway.
extern template std::shared_ptr<LoweredGraph const> lower<BuiltinOps>(Graph<BuiltinOps> const&, Device*, LowerOptions const&, ConstantCache*);
}  // namespace autograph::cuda
