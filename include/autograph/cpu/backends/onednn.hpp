#pragma once
// The oneDNN backend: every built-in operator through the runtime's own kernels (cpu/ops.hpp,
// oneDNN primitives where oneDNN has the operator), and a convolution or matrix multiplication
// with the activation after it as one primitive (oneDNN's eltwise post-op, "Primitive
// Attributes: Post-ops" in the oneDNN developer guide), which the runtime's Conv2D and MatMul
// kernels already apply from the op's `act`.
#include <optional>

#include "autograph/cpu/backends/cpu_backend.hpp"
#include "autograph/cpu/ops.hpp"

namespace autograph::cpu::backends {

struct OneDnn {
  static constexpr std::string_view name = "onednn";

  template <class Set>
  void declare(placement::BackendSpec<Set>& spec) const {
    spec.add(placement::PatternRule<Set>{.name = "op",
                                         .valid_op = [](Graph<Set> const&, NodeId) { return true; },
                                         .fusion = [](Graph<Set> const&, std::span<NodeId const>) { return true; },
                                         .max_size = 1});
    // conv/matmul (no activation yet) -> Relu | Sigmoid | Tanh, the product read only by it.
    spec.add(placement::PatternRule<Set>{
        .name = "conv-eltwise-postop",
        .valid_op = [](Graph<Set> const& g, NodeId n) { return producer_without_act(g[n].op) || activation_of(g[n].op) != Activation::none; },
        .fusion =
            [](Graph<Set> const& g, std::span<NodeId const> group) {
              if (group.size() == 1) return producer_without_act(g[group[0]].op);
              NodeId a = group[0], b = group[1];
              if (!producer_without_act(g[a].op)) std::swap(a, b);
              return producer_without_act(g[a].op) && activation_of(g[b].op) != Activation::none && placement::reads(g, b, a) &&
                     placement::escaping_nodes(g, group) == 1;
            },
        .max_size = 2});
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, NodeGroup const&) const {
    return rules::ok;  // every built-in op has a kernel here (or its reference kernel)
  }
  std::optional<AnyOp> as_op(Graph<BuiltinOps> const& group) const;  // src/cpu/backends.cpp
  void build(Graph<BuiltinOps> const& group, Preparation& p) const;

 private:
  static bool producer_without_act(AnyOp const& op) {
    if (auto const* c = op.get_if<Conv2D>()) return c->act == Activation::none;
    if (auto const* m = op.get_if<MatMul>()) return m->act == Activation::none;
    return false;
  }
  static Activation activation_of(AnyOp const& op) {
    return op.is<Relu>() ? Activation::relu : op.is<Sigmoid>() ? Activation::sigmoid : op.is<Tanh>() ? Activation::tanh : Activation::none;
  }
};

}  // namespace autograph::cpu::backends
