#pragma once
// The BLAS backend: a convolution as the reference kernels compute it (runtime/cpu/conv2d.hpp):
// each image's receptive fields laid out as columns (im2col; a 1x1 stride-1 unpadded
// convolution reads the image itself) and one OpenBLAS sgemm per group, then the bias and the
// activation (also a following Relu/Sigmoid/Tanh, fused), over the plain NCHW layout.
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
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, placement::Group const&) const {
    return rules::ok;
  }

  void build(Graph<BuiltinOps> const& group, Preparation& p) const {
    auto ops = group_ops(group);
    auto const* c = ops.empty() ? nullptr : group[ops[0]].get_if<Conv2D>();
    if (!c || ops.size() > 2) p.reject("BLAS runs a convolution, optionally with its activation");
    Conv2D op = *c;
    if (ops.size() == 2) op.act = activation_of(group[ops[1]].op);
    Shape const& xs = p.inputs()[0].shape;
    Shape const& ws = p.inputs()[1].shape;
    Shape const& ys = p.outputs()[0].shape;
    std::int64_t const N = xs[0], C = xs[1], H = xs[2], W = xs[3], K = ws[0], Cg = ws[1], R = ws[2], S = ws[3], Ho = ys[2], Wo = ys[3];
    std::int64_t const G = op.groups, Kg = K / G, field = Cg * R * S, pixels = Ho * Wo;
    bool const direct = R == 1 && S == 1 && op.stride == std::array<std::int64_t, 2>{1, 1} && op.pad == std::array<std::int64_t, 4>{};
    bool const bias = p.inputs().size() == 3;
    std::size_t const col = p.workspace(direct ? 0 : static_cast<std::size_t>(C * R * S * pixels) * sizeof(float));
    p.run("OpenBLAS im2col + sgemm convolution", [=](Io const& io) -> Runner {
      float const *x = io.in[0], *w = io.in[1], *b = bias ? io.in[2] : nullptr;
      float* y = io.out[0];
      auto* cols = static_cast<float*>(io.workspace[col]);
      return [=] {
        for (std::int64_t n = 0; n < N; ++n) {
          float const* image = x + n * C * H * W;
          float const* fields = image;
          if (!direct) {
            im2col(image, C, H, W, R, S, Ho, Wo, op, cols);
            fields = cols;
          }
          float* out = y + n * K * pixels;
          for (std::int64_t g = 0; g < G; ++g)
            gemm(Kg, pixels, field, w + g * Kg * field, field, fields + g * field * pixels, pixels, out + g * Kg * pixels, pixels);
          bias_activation(out, K, pixels, b, op.act);
        }
      };
    });
  }

 private:
  static Activation activation_of(AnyOp const& op) {
    return op.is<Relu>() ? Activation::relu : op.is<Sigmoid>() ? Activation::sigmoid : op.is<Tanh>() ? Activation::tanh : Activation::none;
  }
};

}  // namespace autograph::cpu::backends
