#pragma once
// The cuDNN backend: convolutions as the runtime's own lowering runs them (src/cuda/lower_ops.cpp,
// dnn::ConvForward: the legacy algorithm cudnnFind* measured fastest, or a graph-API execution
// plan where one measured faster, src/cuda/conv_engine.hpp; once per device and shape), and a
// convolution followed by a ReLU as the Conv2D with `act` = relu (cuda/epilogue.hpp: on the
// legacy path one cudnnConvolutionBiasActivationForward, which fuses CUDNN_ACTIVATION_RELU with
// any algorithm and has no sigmoid or tanh, so only ReLU is fused here). Transposed convolutions
// run as cudnnConvolutionBackwardData. Pooling is not cuDNN's in this runtime (our pool2d
// kernel), so this backend declares none.
#include <optional>

#include "autograph/cuda/backends/cuda_backend.hpp"

namespace autograph::cuda::backends {

struct Cudnn {
  static constexpr std::string_view name = "cudnn";

  template <class Set>
  void declare(placement::BackendSpec<Set>& spec) const {
    spec.add(placement::PatternRule<Set>{.name = "conv",
                                         .valid_op = [](Graph<Set> const& g, NodeId n) { return g[n].op.template is<Conv2D>() || g[n].op.template is<ConvTranspose2D>(); },
                                         .fusion = [](Graph<Set> const&, std::span<NodeId const>) { return true; },
                                         .max_size = 1});
    // conv (no activation yet) -> Relu, the convolution read only by the ReLU.
    spec.add(placement::PatternRule<Set>{
        .name = "conv-bias-relu",
        .valid_op = [](Graph<Set> const& g, NodeId n) { return conv_without_act(g[n].op) || g[n].op.template is<Relu>(); },
        .fusion =
            [](Graph<Set> const& g, std::span<NodeId const> group) {
              if (group.size() == 1) return conv_without_act(g[group[0]].op);
              NodeId a = group[0], b = group[1];
              if (!conv_without_act(g[a].op)) std::swap(a, b);
              return conv_without_act(g[a].op) && g[b].op.template is<Relu>() && placement::reads(g, b, a) && placement::escaping_nodes(g, group) == 1;
            },
        .max_size = 2});
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, NodeGroup const&) const {
    return rules::ok;  // lower(Conv2D) rejects shapes beyond cuDNN's 32-bit sizes itself; the zoo has none
  }
  /// The group as one Conv2D (its ReLU in `act`) or ConvTranspose2D. Nullopt for anything else.
  std::optional<AnyOp> as_op(Graph<BuiltinOps> const& group) const;  // src/cuda/backends.cpp
  void lower(Graph<BuiltinOps> const& group, Lowering& l) const;

 private:
  static bool conv_without_act(AnyOp const& op) {
    auto const* c = op.get_if<Conv2D>();
    return c && c->act == Activation::none;
  }
};

}  // namespace autograph::cuda::backends
