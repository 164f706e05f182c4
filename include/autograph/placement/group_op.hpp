#pragma once
// What every runtime's BackendGroup op computes, read off the group's own graph (an Input per
// value it reads from outside, in the node's input order: placement/group_graph.hpp): its
// output shapes, its FLOPs and its reference kernel. cpu/backends/backend_group.hpp and
// cuda/backends/backend_group.hpp add how their runtime runs the group.
#include <span>
#include <string>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/runtime/reference_executor.hpp"

namespace autograph::placement {

/// The group's outputs for inputs `in`, which must be exactly the group's boundary values.
/// @throws ShapeError naming the backend and the input that differs.
inline std::vector<TensorDesc> group_infer(Graph<BuiltinOps> const& g, std::string const& backend, std::span<TensorDesc const> in) {
  auto const boundary = g.inputs();
  if (boundary.size() != in.size())
    throw ShapeError("BackendGroup (" + backend + "): the group reads " + std::to_string(boundary.size()) + " values, got " +
                     std::to_string(in.size()));
  for (std::size_t i = 0; i < in.size(); ++i)
    if (g[boundary[i]].outputs[0] != in[i])
      throw ShapeError("BackendGroup (" + backend + "): input " + std::to_string(i) + " must be " + g[boundary[i]].outputs[0].to_string() +
                       ", got " + in[i].to_string());
  std::vector<TensorDesc> out;
  for (Value v : g.outputs()) out.push_back(g.desc(v));
  return out;
}

/// The FLOPs of the group's ops.
inline double group_flops(Graph<BuiltinOps> const& g) {
  double f = 0;
  for (NodeId n : g.node_ids()) {
    auto const& node = g[n];
    std::vector<TensorDesc> in;
    for (Value v : node.inputs) in.push_back(g.desc(v));
    f += node.op.flops(in, node.outputs);
  }
  return f;
}

/// The reference kernel: the group's graph on the reference executor.
inline std::vector<Tensor> group_evaluate(Graph<BuiltinOps> const& g, std::span<Tensor const> in) {
  return ReferenceExecutor<BuiltinOps>{}.run(g, in);
}

}  // namespace autograph::placement
