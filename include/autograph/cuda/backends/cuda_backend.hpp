#pragma once
// The CUDA rung of the Backend ladder (placement/backend.hpp), as cpu/backends/cpu_backend.hpp
// is the CPU's: a backend the CUDA runtime can run lowers one node for a group it matched, from
// the group's graph (backend_group.hpp), with the node's Lowering (cuda/kernel.hpp):
//
//   void lower(Graph<BuiltinOps> const& group, cuda::Lowering& l) const;   // l.reject(why) when it cannot
//
// Optionally `std::optional<AnyOp> as_op(Graph<BuiltinOps> const& group) const` says that the
// group is one built-in operator the runtime's own lowering runs the way the backend does (a
// convolution with its ReLU fused: cuDNN's fused call): the placed graph then holds that op.
#include <concepts>
#include <optional>
#include <string>
#include <vector>

#include "autograph/cuda/backends/backend_group.hpp"
#include "autograph/cuda/ops.hpp"
#include "autograph/graph/topological_order.hpp"
#include "autograph/placement/backend.hpp"

namespace autograph::cuda {

template <class B>
concept CudaBackend = placement::Backend<B, BuiltinOps> && requires(B const& b, Graph<BuiltinOps> const& group, Lowering& l) {
  b.lower(group, l);
};

template <class B>
concept RewritingCudaBackend = CudaBackend<B> && requires(B const& b, Graph<BuiltinOps> const& group) {
  { b.as_op(group) } -> std::same_as<std::optional<AnyOp>>;
};

/// The op-level nodes of a group's graph (its boundary inputs left out), producers first.
inline std::vector<NodeId> group_ops(Graph<BuiltinOps> const& group) {
  std::vector<NodeId> r;
  for (NodeId n : topological_order(group))
    if (!group[n].op.is_source()) r.push_back(n);
  return r;
}

/// Lowers `op` with the runtime's own lowering (cuda/ops.hpp) on the node `l` describes.
inline void lower_builtin(AnyOp const& op, Lowering& l) {
  visit_op<BuiltinOps>(op, [&]<class O>(O const& o) {
    if constexpr (is_source_op<O>)
      l.reject(std::string(O::name) + " is a source, not a kernel");
    else
      Kernel<O>::lower(o, l);
  });
}

}  // namespace autograph::cuda
