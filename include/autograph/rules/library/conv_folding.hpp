#pragma once
// Folding per-channel affine ops that follow a convolution into its weights and bias:
//   batchnorm(conv(x, w, b))  = conv(x, w * a, (b - mean) * a + beta),  a = gamma / sqrt(var + eps)
//   conv(x, w, b) + c         = conv(x, w, b + c)          for c of shape [1,K,1,1] or [K,1,1]
//   conv(x, w, b) * s         = conv(x, w * s, b * s)      for s of shape [1,K,1,1] or [K,1,1]
// The new weights are graph ops on the old ones (Scale, Sqrt, Div, Reshape, Mul, Sub, Add); the
// Rewriter folds them into new weights when the weights have data.
#include "autograph/rules/library/common.hpp"

namespace autograph::rules {

namespace detail {
inline Status plain_conv(Conv2D const& c) { return c.act == Activation::none ? ok : no_match("the conv applies an activation before the folded op"); }

/// c broadcast over a conv output [N,K,H,W] adds one value per channel: [1,K,1,1] or [K,1,1].
inline bool per_channel(Shape const& c, std::int64_t k) {
  return (c.rank() == 4 && c[0] == 1 && c[1] == k && c[2] == 1 && c[3] == 1) || (c.rank() == 3 && c[0] == k && c[1] == 1 && c[2] == 1);
}

template <class Set>
void conv_example(std::mt19937_64& rng, GraphBuilder<Set>& b, Value& y, std::int64_t& k) {
  auto x = b.input("x", {pick(rng, {1, 2}), pick(rng, {2, 3, 4}), pick(rng, {4, 6}), pick(rng, {5, 7})});
  k = pick(rng, {2, 3, 5});
  std::int64_t r = pick(rng, {1, 3});
  y = b.conv2d(x, k, {r, r}, {.stride = {pick(rng, {1, 2}), pick(rng, {1, 2})}, .groups = 1, .bias = coin(rng)});
}
}  // namespace detail

struct FoldConvBatchNorm : PatternRule<FoldConvBatchNorm> {
  static constexpr std::string_view name = "fold-conv-batchnorm";

  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var x = p.var(), gamma = p.var(), beta = p.var(), mean = p.var(), var = p.var();
    auto conv = p.op(is<Conv2D>, {x}).extra_inputs().when(detail::plain_conv);
    auto bn = p.op(is<BatchNorm>, {conv, gamma, beta, mean, var});
    p.output(bn);
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    auto const& conv = g[m.node(0)];
    float eps = detail::op_at<BatchNorm>(g, m.node(1)).epsilon;
    std::string n = detail::derived_name(g, m.node(0), "bn_folded");
    std::int64_t k = g.desc(conv.inputs[1]).shape[0];
    Value gamma = m.var(1), beta = m.var(2), mean = m.var(3), var = m.var(4);
    Value a = rw.add(Div{}, {gamma, rw.add(Sqrt{}, {rw.add(Scale{1.f, eps}, {var}, n + ".var_eps")}, n + ".std")}, n + ".a");
    Value w = rw.add(Mul{}, {conv.inputs[1], rw.add(Reshape{{k, 1, 1, 1}}, {a}, n + ".a4")}, n + ".weight");
    Value bias = conv.inputs.size() == 3 ? rw.add(Add{}, {rw.add(Mul{}, {rw.add(Sub{}, {conv.inputs[2], mean}), a}), beta}, n + ".bias")
                                         : rw.add(Sub{}, {beta, rw.add(Mul{}, {mean, a})}, n + ".bias");
    return {rw.add(detail::op_at<Conv2D>(g, m.node(0)), {conv.inputs[0], w, bias}, n)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    Value y;
    std::int64_t k;
    detail::conv_example(rng, b, y, k);
    float const epsilons[] = {1e-5f, 1e-3f, 0.5f};  // a large epsilon shows whether it is honoured
    float eps = epsilons[detail::pick(rng, {0, 1, 2})];
    return std::move(b).build({b.batch_norm(y, eps)});
  }
};

/// conv(x, w, b) op c => conv(x, w', b') for a per-channel c; Add folds into the bias, Mul into both.
template <FixedString Name, class Op>
struct FoldConvChannelOp : PatternRule<FoldConvChannelOp<Name, Op>> {
  static constexpr std::string_view name = Name;

  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var x = p.var(), c = p.var();
    auto conv = p.op(is<Conv2D>, {x}).extra_inputs().when(detail::plain_conv);
    auto op = p.op(is<Op>, {conv, c}).commutative();
    p.output(op);
    p.check([](Graph<Set> const& g, Match const& m) {
      return detail::per_channel(g.desc(m.var(1)).shape, g[m.node(0)].outputs[0].shape[1]) ? ok : no_match("the operand is not one value per channel");
    });
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    auto const& conv = g[m.node(0)];
    std::int64_t k = conv.outputs[0].shape[1];
    std::string n = detail::derived_name(g, m.node(0), std::is_same_v<Op, Add> ? "bias_folded" : "scale_folded");
    Value c = rw.add(Reshape{{k}}, {m.var(1)}, n + ".c");
    Value w = conv.inputs[1];
    Value bias;
    if constexpr (std::is_same_v<Op, Add>) {
      bias = conv.inputs.size() == 3 ? rw.add(Add{}, {conv.inputs[2], c}, n + ".bias") : c;
    } else {
      w = rw.add(Mul{}, {w, rw.add(Reshape{{k, 1, 1, 1}}, {m.var(1)}, n + ".c4")}, n + ".weight");
      if (conv.inputs.size() == 3) bias = rw.add(Mul{}, {conv.inputs[2], c}, n + ".bias");
    }
    std::vector<Value> in{conv.inputs[0], w};
    if (bias.node != no_node) in.push_back(bias);
    return {rw.add(detail::op_at<Conv2D>(g, m.node(0)), in, n)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    Value y;
    std::int64_t k;
    detail::conv_example(rng, b, y, k);
    Shape cs = detail::coin(rng) ? Shape{1, k, 1, 1} : Shape{k, 1, 1};
    Value c = b.weight("c", cs, WeightInit::uniform);
    return std::move(b).build({detail::coin(rng) ? b.add(Op{}, {y, c}) : b.add(Op{}, {c, y})});
  }
};

using FoldConvBias = FoldConvChannelOp<"fold-conv-bias-add", Add>;
using FoldConvScale = FoldConvChannelOp<"fold-conv-channel-scale", Mul>;

/// conv(x, w[K,C,r,s]) with r, s in {1, 3} => conv(x, enlarge(w) [K,C,3,3]) with padding grown by
/// (3-r)/2 and (3-s)/2 per side: the zero ring adds nothing, and the enlarged conv can then merge
/// with a 3x3 sibling (TASO's enlarge; Inception's 1x1 and 1x3/3x1 branches).
struct EnlargeConvKernel : PatternRule<EnlargeConvKernel> {
  static constexpr std::string_view name = "enlarge-conv-kernel";

  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var x = p.var(), w = p.var();
    auto conv = p.op(is<Conv2D>, {x, w}).extra_inputs().when([](Graph<Set> const& g, NodeId n) {
      auto const& c = detail::op_at<Conv2D>(g, n);
      Shape const& ws = g.desc(g[n].inputs[1]).shape;
      if (c.dilation != std::array<std::int64_t, 2>{1, 1}) return no_match("dilated conv");
      bool small = (ws[2] == 1 || ws[2] == 3) && (ws[3] == 1 || ws[3] == 3) && !(ws[2] == 3 && ws[3] == 3);
      return small ? ok : no_match("the kernel is not 1x1, 1x3 or 3x1");
    });
    p.output(conv);
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    auto const& n = g[m.node(0)];
    Shape const& ws = g.desc(n.inputs[1]).shape;
    Conv2D c = detail::op_at<Conv2D>(g, m.node(0));
    std::int64_t dh = (3 - ws[2]) / 2, dw = (3 - ws[3]) / 2;
    c.pad = {c.pad[0] + dh, c.pad[1] + dw, c.pad[2] + dh, c.pad[3] + dw};
    std::vector<Value> in = n.inputs;
    in[1] = rw.add(Enlarge{{3, 3}}, {n.inputs[1]}, detail::derived_name(g, m.node(0), "weight3x3"));
    return {rw.add(c, in, n.name)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto x = b.input("x", {detail::pick(rng, {1, 2}), detail::pick(rng, {2, 3}), detail::pick(rng, {5, 6}), detail::pick(rng, {4, 7})});
    std::array<std::int64_t, 2> k = detail::coin(rng) ? std::array<std::int64_t, 2>{1, 1} : detail::coin(rng) ? std::array<std::int64_t, 2>{1, 3} : std::array<std::int64_t, 2>{3, 1};
    std::int64_t s = detail::pick(rng, {1, 2});
    auto y = b.conv2d(x, detail::pick(rng, {2, 4}), k, {.stride = {s, s}, .act = detail::coin(rng) ? Activation::relu : Activation::none, .bias = detail::coin(rng)});
    return std::move(b).build({y});
  }
};

}  // namespace autograph::rules
