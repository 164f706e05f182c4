#pragma once
// Transformer fusions (AutoGTCO §III-IV: the subgraphs of a transformer that fuse into one
// kernel each), producing the fused operators:
//   matmul(softmax(scale(matmul(q, kT))), v)            => FusedAttention(q, kT, v)        fuse-attention
//   matmul(softmax(scale(matmul(q, kT)) + mask), v)     => FusedAttention(q, kT, v, mask)  fuse-masked-attention
//   matmul(x, w) + bias                                 => MatMul(x, w, bias)              fuse-matmul-bias
//   gelu(matmul(x, w, ...))                             => MatMul(x, w, ...; gelu)         fuse-matmul-gelu
//   layer_norm(a + b)                                   => AddLayerNorm(a, b)              fuse-add-layer-norm
//   layer_norm(a + b), a + b read elsewhere too         => AddLayerNorm(a, b; keep sum)    fuse-add-layer-norm-keep-sum
// and the elementwise chains into their producer of epilogue_fusion.hpp (conv/matmul + residual
// add + activation ..., with the BatchNorm folding that exposes them).
// The attention source is what models/transformer.hpp's attention_core builds (the scale node,
// then softmax over the last axis), as ViT-B/16 and bert_encoder_8x1024 do; the mask adds
// after the scale, as BERT's extended attention mask does. The matcher already refuses a match
// whose intermediate value is read outside it (the scores, the pre-activation): those rules
// never duplicate work. Only the keep-sum rule maps an intermediate, the sum, as an output.
#include "autograph/rules/library/common.hpp"
#include "autograph/rules/library/epilogue_fusion.hpp"
#include "autograph/rules/library/fusion.hpp"

namespace autograph::rules {

namespace detail {
inline constexpr auto unfused_matmul = [](MatMul const& m) { return to_status(m.act == Activation::none, "the matmul applies an activation"); };
inline constexpr auto plain_scale = [](Scale const& s) { return to_status(s.shift == 0.f, "the scale shifts"); };
/// Softmax over the last axis (the scores' keys).
inline constexpr auto softmax_over_keys = [](auto const& g, NodeId n) {
  auto const& s = *g[n].op.template get_if<Softmax>();
  auto rank = static_cast<std::int64_t>(g[n].outputs[0].shape.rank());
  return to_status(s.axis == -1 || s.axis == rank - 1, "the softmax is not over the last axis");
};
}  // namespace detail

inline namespace library {
using namespace dsl;

struct FuseAttention : Rewrite<FuseAttention, "fuse-attention"> {
  static constexpr auto scores = matmul(a, b).when(detail::unfused_matmul);
  static constexpr auto scaled = scale(scores).when(detail::plain_scale);
  static constexpr auto probs = op<Softmax>(scaled).when(detail::softmax_over_keys);
  static constexpr auto from = matmul(probs, c).when(detail::unfused_matmul);
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = bind<Set>(rw, match);
    return {rw.add(FusedAttention{m[scaled].scale}, {m[a], m[b], m[c]}, detail::target_name(m.graph(), m.root(), name))};
  }
};

struct FuseMaskedAttention : Rewrite<FuseMaskedAttention, "fuse-masked-attention"> {
  static constexpr auto scores = matmul(a, b).when(detail::unfused_matmul);
  static constexpr auto scaled = scale(scores).when(detail::plain_scale);
  static constexpr auto masked = add(scaled, d).commutative();
  static constexpr auto probs = op<Softmax>(masked).when(detail::softmax_over_keys);
  static constexpr auto from = matmul(probs, c).when(detail::unfused_matmul).check([](auto const& m) {
    auto const& g = m.graph();
    return to_status(g[m.node(masked)].outputs[0] == g[m.node(scaled)].outputs[0], "the mask enlarges the scores");
  });
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = bind<Set>(rw, match);
    return {rw.add(FusedAttention{m[scaled].scale}, {m[a], m[b], m[c], m[d]}, detail::target_name(m.graph(), m.root(), name))};
  }
};

struct FuseMatMulBias : Rewrite<FuseMatMulBias, "fuse-matmul-bias"> {
  static constexpr auto product = matmul(a, w).when(detail::unfused_matmul);
  static constexpr auto from = add(product, b).commutative().check([](auto const& m) {
    Shape const& y = m.graph()[m.node(product)].outputs[0].shape;
    return to_status(m.desc(b).shape == Shape{y[y.rank() - 1]}, "the addend is not one bias per output column");
  });
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = bind<Set>(rw, match);
    MatMul op = m[product];
    return {rw.add(op, {m[a], m[w], m[b]}, m.name(product))};
  }
};

struct FuseAddLayerNorm : Rewrite<FuseAddLayerNorm, "fuse-add-layer-norm"> {
  static constexpr auto sum = add(a, b);
  static constexpr auto from = op<LayerNorm>(sum, c, d);
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = bind<Set>(rw, match);
    LayerNorm const& ln = m[from];
    return {rw.add(AddLayerNorm{ln.axis, ln.epsilon, false}, {m[a], m[b], m[c], m[d]}, detail::target_name(m.graph(), m.root(), name))};
  }
};

/// Two outputs, the norm and the sum, so a PatternRule: the sum's other readers (the next
/// residual of a pre-LN block) move to AddLayerNorm's output 1.
struct FuseAddLayerNormKeepSum : PatternRule<FuseAddLayerNormKeepSum> {
  static constexpr std::string_view name = "fuse-add-layer-norm-keep-sum";
  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var x = p.var(), y = p.var(), gamma = p.var(), beta = p.var();
    auto sum = p.op(is<Add>, {x, y}).when([](Graph<Set> const& g, NodeId n) {
      return to_status(g.users(n).size() > 1 || g.is_output(n), "the sum has no reader but the layer norm (fuse-add-layer-norm)");
    });
    auto ln = p.op(is<LayerNorm>, {sum, gamma, beta});
    p.output(ln);
    p.output(sum);
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    LayerNorm ln = *g[m.node(1)].op.template get_if<LayerNorm>();
    Value in[] = {m.var(0), m.var(1), m.var(2), m.var(3)};
    auto out = rw.add_multi(AddLayerNorm{ln.axis, ln.epsilon, true}, in, detail::target_name(g, m.node(1), name));
    return {out[0], out[1]};
  }
};

}  // namespace library

/// The transformer fusions, in the order a greedy pass prefers: the bias joins its matmul
/// before the GELU does. Not part of rules::Default: the CUDA runtime's FusedAttention kernel
/// (FP32 on CUDA cores) has never run on a GPU, and the roofline prices it as a tensor-core
/// FlashAttention (see the README's section on fused operators).
/// The elementwise chains into their producer (epilogue_fusion.hpp) come last: a residual add
/// that a LayerNorm reads goes to fuse-add-layer-norm first.
using TransformerFusion = join_t<Rules<FuseAttention, FuseMaskedAttention, FuseMatMulBias, FuseMatMulGelu, FuseAddLayerNorm, FuseAddLayerNormKeepSum>,
                                 EpilogueFusion>;

// Random examples (numerical verification): attention over [B, H, T, D] heads as attention_core
// lays them out, with batch dimensions that broadcast now and then; linear layers over
// [B, T, K]; residual sums over [B, T, C] with a broadcast position-embedding-like addend.
namespace detail {
struct AttentionExample {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng, bool masked) {
    GraphBuilder<Set> b;
    std::int64_t batch = pick(rng, {1, 2}), heads = pick(rng, {1, 3}), tq = pick(rng, {1, 5, 7}), tk = pick(rng, {4, 6}),
                 d = pick(rng, {4, 8}), dv = pick(rng, {3, 8});
    Value q = b.input("q", {batch, heads, tq, d});
    Value kt = b.input("kT", {coin(rng) ? 1 : batch, heads, d, tk});
    Value v = b.input("v", {batch, heads, tk, dv});
    Value s = b.scale(b.matmul(q, kt), 1.f / std::sqrt(static_cast<float>(d)));
    if (masked) {
      Shape mask = coin(rng) ? Shape{tq, tk} : Shape{batch, 1, 1, tk};
      s = coin(rng) ? b.add(s, b.input("mask", mask)) : b.add(b.input("mask", mask), s);
    }
    Value p = b.softmax(s, coin(rng) ? -1 : 3);
    return std::move(b).build({b.matmul(p, v)});
  }
};
}  // namespace detail

template <>
struct RuleExample<FuseAttention> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    return detail::AttentionExample::make<Set>(rng, false);
  }
};

template <>
struct RuleExample<FuseMaskedAttention> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    return detail::AttentionExample::make<Set>(rng, true);
  }
};

template <>
struct RuleExample<FuseMatMulBias> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    Value x = b.input("x", {detail::pick(rng, {1, 2}), detail::pick(rng, {3, 5}), detail::pick(rng, {4, 8})});
    std::int64_t n = detail::pick(rng, {3, 6});
    Value y = b.linear(x, n, false);
    Value bias = b.weight("bias", Shape{n}, WeightInit::uniform);
    return std::move(b).build({b.gelu(detail::coin(rng) ? b.add(y, bias) : b.add(bias, y))});
  }
};

namespace detail {
template <class Set>
Graph<Set> residual_norm_example(std::mt19937_64& rng, bool sum_read_elsewhere) {
  GraphBuilder<Set> b;
  std::int64_t batch = pick(rng, {1, 2}), t = pick(rng, {3, 5}), c = pick(rng, {4, 8});
  Value x = b.input("x", {batch, t, c});
  Value r = b.input("r", {coin(rng) ? 1 : batch, t, c});
  Value s = b.add(x, r);
  Value y = b.layer_norm(s, coin(rng) ? 1e-6f : 1e-5f);
  if (!sum_read_elsewhere) return std::move(b).build({y});
  return std::move(b).build({b.add(s, b.relu(y))});  // a pre-LN block's next residual
}
}  // namespace detail

template <>
struct RuleExample<FuseAddLayerNorm> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    return detail::residual_norm_example<Set>(rng, false);
  }
};

template <>
struct RuleExample<FuseAddLayerNormKeepSum> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    return detail::residual_norm_example<Set>(rng, true);
  }
};

}  // namespace autograph::rules
