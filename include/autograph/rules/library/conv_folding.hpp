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
inline constexpr auto plain_conv = [](Conv2D const& c) { return to_status(c.act == Activation::none, "the conv applies an activation before the folded op"); };

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

inline namespace library {
using namespace dsl;

/// The folded weights and bias are graph ops on the matched ones (computed, not a fixed target).
struct FoldConvBatchNorm : Rewrite<FoldConvBatchNorm, "fold-conv-batchnorm"> {
  static constexpr Variable<8> gamma{};
  static constexpr Variable<9> beta{};
  static constexpr Variable<10> mean{};
  static constexpr Variable<11> var{};
  static constexpr auto conv = conv2d(x).extra_inputs().when(detail::plain_conv);  // the bias is optional
  static constexpr auto from = op<BatchNorm>(conv, gamma, beta, mean, var);
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = bind<Set>(rw, match);
    std::string n = detail::derived_name(m.graph(), m.node(conv), "bn_folded");
    Conv2D c = m[conv];
    std::vector<Value> in(m.inputs(conv).begin(), m.inputs(conv).end());  // a copy: adding nodes may move the graph's storage
    std::int64_t k = m.graph().desc(in[1]).shape[0];
    Value a = rw.add(Div{}, {m[gamma], rw.add(Sqrt{}, {rw.add(Scale{1.f, m[from].epsilon}, {m[var]}, n + ".var_eps")}, n + ".std")}, n + ".a");
    Value w = rw.add(Mul{}, {in[1], rw.add(Reshape{{k, 1, 1, 1}}, {a}, n + ".a4")}, n + ".weight");
    Value bias = in.size() == 3 ? rw.add(Add{}, {rw.add(Mul{}, {rw.add(Sub{}, {in[2], m[mean]}), a}), m[beta]}, n + ".bias")
                                : rw.add(Sub{}, {m[beta], rw.add(Mul{}, {m[mean], a})}, n + ".bias");
    return {rw.add(c, {in[0], w, bias}, n)};
  }
};

/// conv(x, w, b) op c => conv(x, w', b') for a per-channel c; Add folds into the bias, Mul into both.
template <FixedString Name, class Op>
struct FoldConvChannelOp : Rewrite<FoldConvChannelOp<Name, Op>, Name> {
  static constexpr auto conv = conv2d(x).extra_inputs().when(detail::plain_conv);
  static constexpr auto from = op<Op>(conv, c).commutative().check([](auto const& m) {
    return to_status(detail::per_channel(m.desc(c).shape, m.graph()[m.node(conv)].outputs[0].shape[1]), "the operand is not one value per channel");
  });
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = FoldConvChannelOp::template bind<Set>(rw, match);
    std::string n = detail::derived_name(m.graph(), m.node(conv), std::is_same_v<Op, Add> ? "bias_folded" : "scale_folded");
    Conv2D cv = m[conv];
    std::vector<Value> in(m.inputs(conv).begin(), m.inputs(conv).end());  // a copy: adding nodes may move the graph's storage
    std::int64_t k = m.graph()[m.node(conv)].outputs[0].shape[1];
    Value ck = rw.add(Reshape{{k}}, {m[c]}, n + ".c");
    if constexpr (std::is_same_v<Op, Add>) {
      Value bias = in.size() == 3 ? rw.add(Add{}, {in[2], ck}, n + ".bias") : ck;
      in.resize(2);
      in.push_back(bias);
    } else {
      in[1] = rw.add(Mul{}, {in[1], rw.add(Reshape{{k, 1, 1, 1}}, {m[c]}, n + ".c4")}, n + ".weight");
      if (in.size() == 3) in[2] = rw.add(Mul{}, {in[2], ck}, n + ".bias");
    }
    return {rw.add(cv, in, n)};
  }
};

using FoldConvBias = FoldConvChannelOp<"fold-conv-bias-add", Add>;
using FoldConvScale = FoldConvChannelOp<"fold-conv-channel-scale", Mul>;

/// conv(x, w[K,C,r,s]) with r, s in {1, 3} => conv(x, enlarge(w) [K,C,3,3]) with padding grown by
/// (3-r)/2 and (3-s)/2 per side: the zero ring adds nothing, and the enlarged conv can then merge
/// with a 3x3 sibling (TASO's enlarge; Inception's 1x1 and 1x3/3x1 branches).
struct EnlargeConvKernel : Rewrite<EnlargeConvKernel, "enlarge-conv-kernel"> {
  static constexpr auto conv = conv2d(x, w).extra_inputs();
  static constexpr auto from = conv.check([](auto const& m) {
    Shape const& ws = m.desc(w).shape;
    if (m[conv].dilation != std::array<std::int64_t, 2>{1, 1}) return no_match("dilated conv");
    bool small = (ws[2] == 1 || ws[2] == 3) && (ws[3] == 1 || ws[3] == 3) && !(ws[2] == 3 && ws[3] == 3);
    return to_status(small, "the kernel is not 1x1, 1x3 or 3x1");
  });
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = bind<Set>(rw, match);
    Shape const& ws = m.desc(w).shape;
    Conv2D c = m[conv];
    std::int64_t dh = (3 - ws[2]) / 2, dw = (3 - ws[3]) / 2;
    c.pad = {c.pad[0] + dh, c.pad[1] + dw, c.pad[2] + dh, c.pad[3] + dw};
    std::vector<Value> in(m.inputs(conv).begin(), m.inputs(conv).end());
    std::string name = m.name(conv);
    in[1] = rw.add(Enlarge{{3, 3}}, {m[w]}, detail::derived_name(m.graph(), m.node(conv), "weight3x3"));
    return {rw.add(c, in, name)};
  }
};

}  // namespace library

template <>
struct RuleExample<FoldConvBatchNorm> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    Value y;
    std::int64_t k;
    detail::conv_example(rng, b, y, k);
    float const epsilons[] = {1e-5f, 1e-3f, 0.5f};  // a large epsilon shows whether it is honoured
    float eps = epsilons[detail::pick(rng, {0, 1, 2})];
    return std::move(b).build({b.batch_norm(y, eps)});
  }
};

template <FixedString Name, class Op>
struct RuleExample<FoldConvChannelOp<Name, Op>> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    Value y;
    std::int64_t k;
    detail::conv_example(rng, b, y, k);
    Shape cs = detail::coin(rng) ? Shape{1, k, 1, 1} : Shape{k, 1, 1};
    Value c = b.weight("c", cs, WeightInit::uniform);
    return std::move(b).build({detail::coin(rng) ? b.add(Op{}, {y, c}) : b.add(Op{}, {c, y})});
  }
};

template <>
struct RuleExample<EnlargeConvKernel> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto x = b.input("x", {detail::pick(rng, {1, 2}), detail::pick(rng, {2, 3}), detail::pick(rng, {5, 6}), detail::pick(rng, {4, 7})});
    std::array<std::int64_t, 2> k = detail::coin(rng) ? std::array<std::int64_t, 2>{1, 1} : detail::coin(rng) ? std::array<std::int64_t, 2>{1, 3} : std::array<std::int64_t, 2>{3, 1};
    std::int64_t s = detail::pick(rng, {1, 2});
    auto y = b.conv2d(x, detail::pick(rng, {2, 4}), k, {.stride = {s, s}, .act = detail::coin(rng) ? Activation::relu : Activation::none, .bias = detail::coin(rng)});
    return std::move(b).build({y});
  }
};

}  // namespace autograph::rules
