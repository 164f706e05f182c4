#pragma once
// Our own CUDA kernels as a backend:
// - every operator that is not a convolution or a matrix product, one kernel (or view) each, as
//   the runtime's own lowering runs it (src/cuda/lower_ops.cpp: our elementwise, reduction,
//   normalisation, pooling and layout kernels);
// - an elementwise chain (unary and binary elementwise ops of one shape, Scale, and inference
//   BatchNorms whose parameters are constants) in one pass: the elementwise_chain kernel
//   (src/cuda/own_backend.cu) reads the chain's inputs once and writes its one output, where
//   one kernel per op writes and reads back every intermediate tensor;
// - a direct depthwise convolution (groups = input channels, any channel multiplier), its bias
//   and activation fused: the depthwise_conv2d kernel, one thread per output. It competes with
//   cuDNN on the same op: PyTorch runs batch-1 depthwise convolutions with its own kernel of
//   this kind rather than cuDNN's (aten/src/ATen/native/cuda/DepthwiseConv2d.cu,
//   conv_depthwise2d_forward_kernel; ConvUtils' use_cudnn_depthwise picks cuDNN only for some
//   shapes), and NASNet-A has many.
#include <cstdint>
#include <vector>

#include "autograph/cuda/backends/cuda_backend.hpp"
#include "autograph/cuda/kernels.hpp"
#include "autograph/graph/weight_only.hpp"

namespace autograph::cuda::backends {

namespace detail {

template <class O>
inline constexpr bool is_unary_op = false;
template <UnaryKind K>
inline constexpr bool is_unary_op<Unary<K>> = true;
template <class O>
inline constexpr bool is_binary_op = false;
template <BinaryKind K>
inline constexpr bool is_binary_op<Binary<K>> = true;

/// An operator a chain step computes: Unary<K>, Binary<K>, Scale, BatchNorm.
inline bool chain_step_op(AnyOp const& op) {
  if (op.is<Scale>() || op.is<BatchNorm>()) return true;
  return visit_op<BuiltinOps>(op, []<class O>(O const&) { return is_unary_op<O> || is_binary_op<O>; });
}

/// An op a chain runs: elementwise of one shape (no broadcasting), or an inference BatchNorm
/// of a 2-D or wider tensor whose per-channel parameters are constants.
template <class Set>
bool chain_op(Graph<Set> const& g, NodeId n) {
  auto const& node = g[n];
  if (!chain_step_op(node.op) || node.outputs.size() != 1) return false;
  auto const& out = node.outputs[0];
  if (node.op.template is<BatchNorm>())
    return out.shape.rank() >= 2 && g.desc(node.inputs[0]) == out &&
           std::all_of(node.inputs.begin() + 1, node.inputs.end(), [&](Value v) { return is_weight_only(g, v.node); });
  return std::ranges::all_of(node.inputs, [&](Value v) { return g.desc(v) == out; });
}

/// A depthwise convolution: one input channel per group, weight [groups * multiplier, 1, r, s].
template <class Set>
bool depthwise_conv(Graph<Set> const& g, NodeId n) {
  auto const* c = g[n].op.template get_if<Conv2D>();
  if (!c || c->groups < 2) return false;
  Shape const& x = g.desc(g[n].inputs[0]).shape;
  Shape const& w = g.desc(g[n].inputs[1]).shape;
  return x.rank() == 4 && w.rank() == 4 && x[1] == c->groups && w[1] == 1 && w[0] % c->groups == 0;
}

}  // namespace detail

struct OwnCudaKernels {
  static constexpr std::string_view name = "own";

  template <class Set>
  void declare(placement::BackendSpec<Set>& spec) const {
    spec.add(placement::PatternRule<Set>{.name = "op",
                                         .valid_op =
                                             [](Graph<Set> const& g, NodeId n) {
                                               auto const& op = g[n].op;
                                               return !op.template is<Conv2D>() && !op.template is<ConvTranspose2D>() && !op.template is<MatMul>();
                                             },
                                         .fusion = [](Graph<Set> const&, std::span<NodeId const>) { return true; },
                                         .max_size = 1});
    // Connected (each op reads or is read by another of the group) with one value leaving it.
    spec.add(placement::PatternRule<Set>{.name = "elementwise-chain",
                                         .valid_op = detail::chain_op<Set>,
                                         .fusion = placement::connected_with_one_result<Set>,
                                         .max_size = 6});
    spec.add(placement::PatternRule<Set>{.name = "depthwise-conv",
                                         .valid_op = detail::depthwise_conv<Set>,
                                         .fusion = [](Graph<Set> const&, std::span<NodeId const>) { return true; },
                                         .max_size = 1});
  }
  /// A chain reads at most kernels::max_chain_inputs tensors (the kernel's argument block).
  template <class Set>
  rules::Status can_run(Graph<Set> const& g, NodeGroup const& group) const {
    if (group.size() < 2) return rules::ok;
    std::vector<Value> outside;
    for (NodeId n : group.nodes)
      for (Value v : g[n].inputs)
        if (!group.contains(v.node) && std::ranges::find(outside, v) == outside.end()) outside.push_back(v);
    return rules::to_status(outside.size() <= static_cast<std::size_t>(kernels::max_chain_inputs),
                            "the chain reads more tensors than the elementwise_chain kernel takes");
  }
  /// A one-op group that is not a depthwise convolution: that op, lowered as the runtime does.
  std::optional<AnyOp> as_op(Graph<BuiltinOps> const& group) const;  // src/cuda/backends.cpp
  void lower(Graph<BuiltinOps> const& group, Lowering& l) const;
};

}  // namespace autograph::cuda::backends
