#pragma once
// BackendGroup on the CUDA runtime: one node standing for a group a backend runs (placement/),
// so a placed graph is a graph like any other — the stream schedules, the memory plan, capture
// and replay see one kernel node. As on the CPU (cpu/backends/backend_group.hpp), the node reads
// every value the group reads from outside (weights too: they stay constants, uploaded once)
// and writes the group's values read outside it; its body is the group as a graph of its own
// (placement/group_graph.hpp), which gives its shapes and its reference kernel, and the
// backend's lower(), which Kernel<BackendGroup>::lower calls with the node's Lowering.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "autograph/cuda/kernel.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"
#include "autograph/placement/group_graph.hpp"
#include "autograph/runtime/reference_executor.hpp"

namespace autograph::cuda {

struct GroupBody {
  Graph<BuiltinOps> graph;
  std::string backend, pattern;
  std::function<void(Graph<BuiltinOps> const&, Lowering&)> lower;
};

struct BackendGroup {
  static constexpr std::string_view name = "BackendGroup";
  static constexpr Arity arity{0, Arity::variadic};
  std::shared_ptr<GroupBody const> body;

  // One op only when the body is shared (as on the CPU): two groups of one signature were
  // built apart and may read different weights.
  auto params() const { return std::tuple{reinterpret_cast<std::uintptr_t>(body.get())}; }
  bool operator==(BackendGroup const&) const = default;

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    auto const boundary = body->graph.inputs();
    if (boundary.size() != in.size())
      throw ShapeError("BackendGroup (" + body->backend + "): the group reads " + std::to_string(boundary.size()) + " values, got " +
                       std::to_string(in.size()));
    for (std::size_t i = 0; i < in.size(); ++i)
      if (body->graph[boundary[i]].outputs[0] != in[i])
        throw ShapeError("BackendGroup (" + body->backend + "): input " + std::to_string(i) + " must be " +
                         body->graph[boundary[i]].outputs[0].to_string() + ", got " + in[i].to_string());
    std::vector<TensorDesc> out;
    for (Value v : body->graph.outputs()) out.push_back(body->graph.desc(v));
    return out;
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const {
    double f = 0;
    for (NodeId n : body->graph.node_ids()) {
      auto const& node = body->graph[n];
      std::vector<TensorDesc> in;
      for (Value v : node.inputs) in.push_back(body->graph.desc(v));
      f += node.op.flops(in, node.outputs);
    }
    return f;
  }
  std::string attributes() const { return body->backend + ": " + body->pattern; }
  /// The reference kernel: the group's graph on the reference executor.
  std::vector<Tensor> evaluate(std::span<Tensor const> in, std::span<TensorDesc const>) const {
    return ReferenceExecutor<BuiltinOps>{}.run(body->graph, in);
  }
  /// "backend 'own' (pattern 'elementwise-chain': Relu 'a/relu' and 2 more)": how errors name the group.
  std::string describe() const {
    std::string first;
    std::size_t ops = 0;
    for (NodeId n : topological_order(body->graph))
      if (!body->graph[n].op.is_source()) {
        if (ops++ == 0) first = body->graph.label(n);
      }
    return "backend '" + body->backend + "' (pattern '" + body->pattern + "': " + first +
           (ops > 1 ? " and " + std::to_string(ops - 1) + " more" : "") + ")";
  }
};

template <>
struct Kernel<BackendGroup> {
  /// The backend's lower() on the node's Lowering; a backend that claimed the group and then
  /// rejects it is named with the group.
  static void lower(BackendGroup const& op, Lowering& l) {
    try {
      op.body->lower(op.body->graph, l);
    } catch (CudaError const& e) {
      throw CudaError(l.label() + ": " + op.describe() + " claims this group but cannot lower it: " + e.what());
    }
  }
};

/// The operators of a graph placed on the CUDA runtime.
using PlacedOps = extend_t<BuiltinOps, BackendGroup>;

}  // namespace autograph::cuda
