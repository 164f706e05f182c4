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
#include "autograph/placement/group_op.hpp"

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

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const { return placement::group_infer(body->graph, body->backend, in); }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return placement::group_flops(body->graph); }
  std::string attributes() const { return body->backend + ": " + body->pattern; }
  /// The reference kernel: the group's graph on the reference executor.
  std::vector<Tensor> evaluate(std::span<Tensor const> in, std::span<TensorDesc const>) const {
    return placement::group_evaluate(body->graph, in);
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
