#pragma once
// The cuBLASLt backend: matrix products as the runtime's own lowering runs them (one strided
// batched cublasLtMatmul, TF32 when allowed), a product followed by a ReLU with the ReLU in
// cuBLASLt's epilogue (CUBLASLT_EPILOGUE_RELU / _RELU_BIAS, cuda/epilogue.hpp), and a pointwise
// convolution (1x1, stride 1, unpadded, one group) as the product it is: per image,
// y[K, H*W] = w[K, C] x[C, H*W], one strided batched call over the images with the weight
// shared (stride 0); its bias (one per output channel, a row of y, which cuBLASLt's bias
// epilogue — one per column — cannot take) and activation run in the bias_activation kernel
// after it, a ReLU without a bias in the epilogue (a Relu node after the convolution is fused the same way). That competes with cuDNN on the same
// convolutions (NASNet-A and Inception-v3 have many pointwise ones).
#include <optional>

#include "autograph/cuda/backends/cuda_backend.hpp"

namespace autograph::cuda::backends {

struct CublasLt {
  static constexpr std::string_view name = "cublaslt";

  template <class Set>
  void declare(placement::BackendSpec<Set>& spec) const {
    spec.add(placement::PatternRule<Set>{.name = "matmul",
                                         .valid_op = [](Graph<Set> const& g, NodeId n) { return g[n].op.template is<MatMul>(); },
                                         .fusion = [](Graph<Set> const&, std::span<NodeId const>) { return true; },
                                         .max_size = 1});
    spec.add(placement::PatternRule<Set>{
        .name = "matmul-relu-epilogue",
        .valid_op = [](Graph<Set> const& g, NodeId n) { return matmul_without_act(g[n].op) || g[n].op.template is<Relu>(); },
        .fusion =
            [](Graph<Set> const& g, std::span<NodeId const> group) {
              if (group.size() == 1) return matmul_without_act(g[group[0]].op);
              NodeId a = group[0], b = group[1];
              if (!matmul_without_act(g[a].op)) std::swap(a, b);
              return matmul_without_act(g[a].op) && g[b].op.template is<Relu>() && placement::reads(g, b, a) && placement::escaping_nodes(g, group) == 1;
            },
        .max_size = 2});
    // A pointwise convolution, or one without an activation followed by the ReLU that alone reads it.
    spec.add(placement::PatternRule<Set>{
        .name = "pointwise-conv-gemm",
        .valid_op = [](Graph<Set> const& g, NodeId n) { return pointwise_conv(g, n) || g[n].op.template is<Relu>(); },
        .fusion =
            [](Graph<Set> const& g, std::span<NodeId const> group) {
              if (group.size() == 1) return pointwise_conv(g, group[0]);
              NodeId a = group[0], b = group[1];
              if (!pointwise_conv(g, a)) std::swap(a, b);
              return pointwise_conv(g, a) && g[a].op.template get_if<Conv2D>()->act == Activation::none && g[b].op.template is<Relu>() &&
                     placement::reads(g, b, a) && placement::escaping_nodes(g, group) == 1;
            },
        .max_size = 2});
  }
  /// A pointwise convolution needs its sizes in cuBLASLt's ranges (32-bit batch count).
  template <class Set>
  rules::Status can_run(Graph<Set> const& g, NodeGroup const& group) const {
    for (NodeId n : group.nodes)
      if (pointwise_conv(g, n) && g.desc(g[n].inputs[0]).shape[0] > 2147483647) return rules::no_match("a batch beyond cuBLASLt's 32-bit count");
    return rules::ok;
  }
  /// A product group as one MatMul (its ReLU in `act`); nullopt for a pointwise convolution,
  /// which lower() runs as a GEMM.
  std::optional<AnyOp> as_op(Graph<BuiltinOps> const& group) const;  // src/cuda/backends.cpp
  void lower(Graph<BuiltinOps> const& group, Lowering& l) const;

  /// A 1x1 convolution with stride 1, no padding and one group: a product over the pixels.
  template <class Set>
  static bool pointwise_conv(Graph<Set> const& g, NodeId n) {
    auto const* c = g[n].op.template get_if<Conv2D>();
    if (!c || c->groups != 1 || c->stride != std::array<std::int64_t, 2>{1, 1} || c->pad != std::array<std::int64_t, 4>{0, 0, 0, 0}) return false;
    Shape const& w = g.desc(g[n].inputs[1]).shape;
    return w.rank() == 4 && w[2] == 1 && w[3] == 1;
  }

 private:
  static bool matmul_without_act(AnyOp const& op) {
    auto const* m = op.get_if<MatMul>();
    return m && m->act == Activation::none;
  }
};

}  // namespace autograph::cuda::backends
