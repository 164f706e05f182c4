#pragma once
// The BLAS backend: a convolution as the reference kernels compute it (runtime/cpu/conv2d.hpp):
// each image's receptive fields laid out as columns (im2col; a 1x1 stride-1 unpadded
// convolution reads the image itself) and one OpenBLAS sgemm per group, then the bias and the
// activation (also a following Relu/Sigmoid/Tanh, fused), over the plain NCHW layout. A
// pointwise convolution (1x1, stride 1, unpadded, one group) is one product over the pixels in
// either layout (any_layout): channels-last neighbours need no reorder around it. A matrix
// product (MatMul, its bias and activation) is sgemm too, split over the kernel's threads by
// blocks of the output's columns or rows (sgemm-matmul).
#include <optional>

#include "autograph/cpu/backends/cpu_backend.hpp"
#include "autograph/runtime/cpu/conv2d.hpp"
#include "autograph/runtime/cpu/gemm.hpp"

namespace autograph::cpu::backends {

struct Blas {
  static constexpr std::string_view name = "blas";

  template <class Set>
  void declare(placement::BackendSpec<Set>& spec) const {
    spec.add(placement::PatternRule<Set>{
        .name = "im2col-sgemm",
        .valid_op = [](Graph<Set> const& g, NodeId n) { return g[n].template is<Conv2D>() || activation_of(g[n].op) != Activation::none; },
        .fusion =
            [](Graph<Set> const& g, std::span<NodeId const> group) {
              NodeId conv = group[0], act = group.back();
              if (!g[conv].template is<Conv2D>()) std::swap(conv, act);
              if (auto const* c = g[conv].template get_if<Conv2D>(); !c || (group.size() == 2 && c->act != Activation::none)) return false;
              return group.size() == 1 || (activation_of(g[act].op) != Activation::none && placement::reads(g, act, conv) &&
                                           placement::escaping_nodes(g, group) == 1);
            },
        .max_size = 2});
    // A matrix product, its activation fused after it: one sgemm over the rows of every batch
    // when the second operand is 2-D, else one per batch of operands with equal batch shapes.
    spec.add(placement::PatternRule<Set>{
        .name = "sgemm-matmul",
        .valid_op = [](Graph<Set> const& g, NodeId n) { return sgemm_matmul(g, n) || activation_of(g[n].op) != Activation::none; },
        .fusion =
            [](Graph<Set> const& g, std::span<NodeId const> group) {
              NodeId mm = group[0], act = group.back();
              if (!g[mm].template is<MatMul>()) std::swap(mm, act);
              auto const* m = g[mm].template get_if<MatMul>();
              if (!m || !sgemm_matmul(g, mm) || (group.size() == 2 && m->act != Activation::none)) return false;
              return group.size() == 1 || (activation_of(g[act].op) != Activation::none && placement::reads(g, act, mm) &&
                                           placement::escaping_nodes(g, group) == 1);
            },
        .max_size = 2});
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, NodeGroup const&) const {
    return rules::ok;  // the rules' valid_op already checked the shapes
  }

  void build(Graph<BuiltinOps> const& group, Preparation& p) const;  // src/cpu/backends.cpp
  bool any_layout(Graph<BuiltinOps> const& group) const;             // a pointwise convolution

 private:
  static void build_pointwise(Conv2D const& op, Preparation& p);
  static void build_matmul(MatMul const& op, Preparation& p);
  /// A MatMul whose batches sgemm can run without broadcasting: a 2-D second operand, or both
  /// operands of one rank with equal batch dimensions.
  template <class Set>
  static bool sgemm_matmul(Graph<Set> const& g, NodeId n) {
    if (!g[n].template is<MatMul>() || g[n].inputs.size() < 2) return false;
    Shape const& a = g.desc(g[n].inputs[0]).shape;
    Shape const& b = g.desc(g[n].inputs[1]).shape;
    if (b.rank() == 2) return true;
    if (a.rank() != b.rank()) return false;
    for (std::size_t d = 0; d + 2 < a.rank(); ++d)
      if (a[d] != b[d]) return false;
    return true;
  }
  static Activation activation_of(AnyOp const& op) {
    return op.is<Relu>() ? Activation::relu : op.is<Sigmoid>() ? Activation::sigmoid : op.is<Tanh>() ? Activation::tanh : Activation::none;
  }
};

}  // namespace autograph::cpu::backends
