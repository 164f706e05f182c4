#pragma once
// BackendGroup: one node standing for a group a backend runs as one kernel (placement/), so a
// placed graph is a graph like any other — the stream schedules, the memory plan and
// AutoGraph's search see one kernel. The node reads every value the group reads from outside
// (weights too, so they stay constants the kernel may repack once) and writes the group's
// values read outside it. Its body is the group as a graph of its own (an Input per outside
// value, in the node's input order), which gives its shapes and its reference kernel, and the
// backend's build(), which the node's cpu::Kernel calls.
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "autograph/cpu/kernel.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/placement/candidate.hpp"
#include "autograph/placement/group_graph.hpp"
#include "autograph/placement/group_op.hpp"

namespace autograph::cpu {

struct GroupBody {
  Graph<BuiltinOps> graph;
  std::string backend, pattern;
  std::function<void(Graph<BuiltinOps> const&, Preparation&)> build;
  // The kernel reads and writes 4-D tensors in whichever layout lowering gives them
  // (Preparation::input_layout / output_layout), so channels-last values need no reorder
  // around it (cpu/kernel.hpp's Layout).
  bool any_layout = false;
};

struct BackendGroup {
  static constexpr std::string_view name = "BackendGroup";
  static constexpr Arity arity{0, Arity::variadic};
  std::shared_ptr<GroupBody const> body;

  // Two nodes are one op only when they share the body (as Weight compares its data pointer):
  // two groups of one signature may read different weights through their own inputs, but
  // their bodies were built apart.
  auto params() const { return std::tuple{reinterpret_cast<std::uintptr_t>(body.get())}; }
  bool operator==(BackendGroup const&) const = default;

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const { return placement::group_infer(body->graph, body->backend, in); }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return placement::group_flops(body->graph); }
  std::string attributes() const { return body->backend + ": " + body->pattern; }
  /// The reference kernel: the group's graph on the reference executor.
  std::vector<Tensor> evaluate(std::span<Tensor const> in, std::span<TensorDesc const>) const {
    return placement::group_evaluate(body->graph, in);
  }
};

template <>
struct Kernel<BackendGroup> {
  static void prepare(BackendGroup const& op, Preparation& p) { op.body->build(op.body->graph, p); }
  static bool takes_channels_last(BackendGroup const& op, std::span<TensorDesc const> in, std::size_t i) {
    return op.body->any_layout && in[i].shape.rank() == 4;
  }
  static bool gives_channels_last(BackendGroup const& op, std::span<TensorDesc const> in) {
    return op.body->any_layout && !in.empty() && in[0].shape.rank() == 4;
  }
};

/// The operators of a placed graph.
using PlacedOps = extend_t<BuiltinOps, BackendGroup>;

// The group cut out of a graph (its graph, the outside values it reads and writes) is
// placement/group_graph.hpp's, shared with the CUDA runtime's backends.
using placement::group_graph;
using placement::GroupGraph;

}  // namespace autograph::cpu
