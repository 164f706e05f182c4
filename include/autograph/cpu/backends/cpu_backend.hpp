#pragma once
// The CPU rung of the Backend ladder (placement/backend.hpp): a backend the CPU runtime can run
// builds one kernel for a group it matched, from the group's graph (backend_group.hpp):
//
//   void build(Graph<BuiltinOps> const& group, cpu::Preparation& p) const;   // p.reject(why) when it cannot
//
// Optionally, `std::optional<AnyOp> as_op(Graph<BuiltinOps> const& group) const` says that the
// group is one built-in operator the runtime's own kernels run (a convolution with its
// activation fused): the placed graph then holds that op, which keeps the runtime's choices
// for it (channels-last layouts between the kernels that take them). And optionally
// `bool any_layout(Graph<BuiltinOps> const& group) const`: its kernel for the group reads and
// writes 4-D tensors in the layouts Preparation::input_layout / output_layout say, so the
// runtime need not reorder channels-last neighbours' tensors around it.
#include <concepts>
#include <optional>

#include "autograph/cpu/backends/backend_group.hpp"
#include "autograph/placement/backend.hpp"

namespace autograph::cpu {

template <class B>
concept CpuBackend = placement::Backend<B, BuiltinOps> && requires(B const& b, Graph<BuiltinOps> const& group, Preparation& p) {
  b.build(group, p);
};

template <class B>
concept RewritingCpuBackend = CpuBackend<B> && requires(B const& b, Graph<BuiltinOps> const& group) {
  { b.as_op(group) } -> std::same_as<std::optional<AnyOp>>;
};

/// The op-level nodes of a group's graph (its boundary inputs left out), producers first.
inline std::vector<NodeId> group_ops(Graph<BuiltinOps> const& group) {
  std::vector<NodeId> r;
  for (NodeId n : topological_order(group))
    if (!group[n].op.is_source()) r.push_back(n);
  return r;
}

/// Prepares `op` with the runtime's own kernel (cpu/ops.hpp) for the node `p` describes.
inline void prepare_builtin(AnyOp const& op, Preparation& p) {
  visit_op<BuiltinOps>(op, [&]<class O>(O const& o) {
    if constexpr (HasCpuKernel<O>)
      Kernel<O>::prepare(o, p);
    else
      p.reject(std::string(O::name) + " has no CPU kernel");
  });
}

}  // namespace autograph::cpu
