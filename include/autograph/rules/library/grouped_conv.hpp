#pragma once
// Grouped convolutions (ResNeXt, NasNet's depthwise convs, AutoGraph's ResNeXt case study):
//   conv(x, w; groups G)                      => conv(x, blockdiag(w); groups G/F)   regroup-conv-by-F
//   conv(x1, w1; G), conv(x2, w2; G)          => split(conv(concat(x1, x2), concat(w1, w2); 2G))
//                                                                      merge-parallel-convs (depthwise too)
//   concat(conv(x1, w1; G), ..., conv(xn, wn; G)) => conv(concat(x1..xn), concat(w1..wn); nG)
//                                                                      concat-convs-to-grouped-conv
// Regrouping builds the block-diagonal weight with graph ops on the weight: view w[K, Cg, R, S]
// as [G/F, F, Kg, 1, Cg, R, S], place slice a of the F axis at position a of a new F axis (Pad),
// concatenate, and view as [K, F*Cg, R, S]: zero except where old group a meets its own channels.
#include <algorithm>

#include "autograph/rules/library/common.hpp"

namespace autograph::rules {

inline namespace library {
using namespace dsl;

/// The block-diagonal weight is computed from the matched weight's shape and the group count.
template <FixedString Name, std::int64_t Factor>
  requires(Factor >= 2)
struct RegroupConv : Rewrite<RegroupConv<Name, Factor>, Name> {
  static constexpr auto conv = conv2d(x, w).extra_inputs();
  static constexpr auto from = conv.check([](auto const& m) {
    if (m[conv].groups % Factor != 0) return no_match("the group count is not a multiple of the factor");
    return to_status(m.desc(w).shape[1] != 1, "depthwise conv (one input channel per group)");
  });
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = RegroupConv::template bind<Set>(rw, match);
    Conv2D c = m[conv];
    Shape const& ws = m.desc(w).shape;
    std::int64_t K = ws[0], Cg = ws[1], R = ws[2], S = ws[3], G = c.groups, Kg = K / G, F = Factor;
    std::string nm = detail::derived_name(m.graph(), m.node(conv), "regrouped");
    std::string name = m.name(conv);
    std::vector<Value> in(m.inputs(conv).begin(), m.inputs(conv).end());  // a copy: adding nodes may move the graph's storage
    Value w7 = rw.add(Reshape{{G / F, F, Kg, 1, Cg, R, S}}, {in[1]}, nm + ".w7");
    std::vector<Value> blocks;
    for (std::int64_t a = 0; a < F; ++a) {
      Value s = rw.add(Slice{{1}, {a}, {a + 1}, {}}, {w7}, nm + ".slice" + std::to_string(a));
      std::vector<std::int64_t> pads(14, 0);
      pads[3] = a;
      pads[7 + 3] = F - 1 - a;
      blocks.push_back(rw.add(Pad{pads, 0.f}, {s}, nm + ".place" + std::to_string(a)));
    }
    Value diag = rw.add(Concat{1}, blocks, nm + ".blocks");
    in[1] = rw.add(Reshape{{K, F * Cg, R, S}}, {diag}, nm + ".weight");
    c.groups = G / F;
    return {rw.add(c, in, name)};
  }
};

}  // namespace library

template <FixedString Name, std::int64_t Factor>
struct RuleExample<RegroupConv<Name, Factor>> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    std::int64_t G = Factor * detail::pick(rng, {1, 2}), Cg = detail::pick(rng, {2, 3}), Kg = detail::pick(rng, {1, 2});
    std::int64_t k = detail::pick(rng, {1, 3});
    auto x = b.input("x", {detail::pick(rng, {1, 2}), G * Cg, detail::pick(rng, {3, 5}), detail::pick(rng, {4, 5})});
    auto y = b.conv2d(x, G * Kg, {k, k}, {.stride = {detail::pick(rng, {1, 2}), 1}, .groups = G, .bias = detail::coin(rng)});
    return std::move(b).build({y});
  }
};

using RegroupConvBy4 = RegroupConv<"regroup-conv-by-4", 4>;
using RegroupConvBy8 = RegroupConv<"regroup-conv-by-8", 8>;

namespace detail {
/// Two convs that can run as two groups of one grouped conv: same op, same weight, bias and
/// input shapes, different data inputs.
template <class Set>
bool parallel_convs(Graph<Set> const& g, NodeId a, NodeId b) {
  auto const &na = g[a], &nb = g[b];
  if (na.outputs[0] != nb.outputs[0] || na.inputs.size() != nb.inputs.size() || na.inputs[0] == nb.inputs[0]) return false;
  for (std::size_t i = 0; i < na.inputs.size(); ++i)
    if (g.desc(na.inputs[i]) != g.desc(nb.inputs[i])) return false;
  return na.op == nb.op;
}

/// One conv with n times the groups over concatenated inputs, weights and biases.
template <class Set>
Value grouped_conv(Rewriter<Set>& rw, std::span<NodeId const> convs, std::string const& n) {
  auto const& g = rw.graph();
  Conv2D c = op_at<Conv2D>(g, convs[0]);
  std::vector<Value> in;
  std::int64_t const axes[] = {1, 0, 0};  // x along channels, w and bias along output channels
  for (std::size_t i = 0; i < g[convs[0]].inputs.size(); ++i) {
    std::vector<Value> parts;
    for (NodeId k : convs) parts.push_back(g[k].inputs[i]);
    in.push_back(rw.add(Concat{axes[i]}, parts, n + ".in" + std::to_string(i)));
  }
  c.groups *= static_cast<std::int64_t>(convs.size());
  return rw.add(c, in, n);
}

template <class Set>
std::vector<Value> parallel_convs_example(GraphBuilder<Set>& b, std::mt19937_64& rng, std::size_t count) {
  std::int64_t n = pick(rng, {1, 2}), c = pick(rng, {2, 4}), h = pick(rng, {4, 5}), w = pick(rng, {3, 6}), k = pick(rng, {1, 3, 5});
  bool depthwise = coin(rng);
  ConvOptions o{.stride = {pick(rng, {1, 2}), 1}, .groups = depthwise ? c : 1, .act = coin(rng) ? Activation::relu : Activation::none, .bias = coin(rng)};
  std::int64_t out = depthwise ? c * pick(rng, {1, 2}) : pick(rng, {2, 3});
  std::vector<Value> ys;
  for (std::size_t i = 0; i < count; ++i) ys.push_back(b.conv2d(b.input("x" + std::to_string(i), {n, c, h, w}), out, {k, k}, o));
  return ys;
}
}  // namespace detail

/// Two independent convs of the same shape, one of them the root; the other is any later conv.
struct MergeParallelConvs : HandMatcher<"merge-parallel-convs", Conv2D> {
  template <class Set>
  static void match(MatchIndex<Set> const& idx, NodeId root, MatchSink sink, char const** why = nullptr) {
    auto const& g = idx.graph();
    Match m;
    for (NodeId other : idx.nodes_of(AnyOp::type_id_of<Conv2D>())) {
      if (other <= root || idx.weight_only(other) || !detail::parallel_convs(g, root, other)) continue;
      if (idx.reaches(root, other) || idx.reaches(other, root)) {  // one reads the other: not parallel
        fail(why, "one conv depends on the other");
        continue;
      }
      m.nodes.assign({root, other});
      m.outputs.assign({Value{root, 0}, Value{other, 0}});
      offer(idx, m, sink, why);
    }
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    std::string n = detail::derived_name(g, m.node(0), "grouped");
    Value y = detail::grouped_conv(rw, std::span<NodeId const>(m.nodes.data(), 2), n);
    std::int64_t k = g[m.node(0)].outputs[0].shape[1];
    return Target(rw.add_multi(Split{1, {k, k}}, {&y, 1}, n + ".split"));
  }
};

struct ConcatConvsToGroupedConv : HandMatcher<"concat-convs-to-grouped-conv", Concat> {
  template <class Set>
  static void match(MatchIndex<Set> const& idx, NodeId root, MatchSink sink, char const** why = nullptr) {
    auto const& g = idx.graph();
    auto const& cat = g[root];
    if (cat.inputs.size() < 2) return fail(why, "a concat of one value");
    if (g.desc({root, 0}).shape.normalize_axis(detail::op_at<Concat>(g, root).axis) != 1) return fail(why, "the concat is not along channels");
    Match m;
    for (Value v : cat.inputs) {
      if (v.port != 0 || !g[v.node].op.template is<Conv2D>()) return fail(why, "a concat input is not a conv");
      if (m.contains(v.node)) return fail(why, "a conv feeds the concat twice");
      for (NodeId k : m.nodes)
        if (g[k].inputs[0] == g[v.node].inputs[0] || !detail::parallel_convs(g, m.node(0), v.node)) return fail(why, "the convs differ in shape or share an input");
      m.nodes.push_back(v.node);
    }
    m.nodes.push_back(root);
    m.outputs.push_back({root, 0});
    offer(idx, m, sink, why);
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    return {detail::grouped_conv(rw, std::span<NodeId const>(m.nodes.data(), m.nodes.size() - 1), detail::derived_name(g, m.nodes.back(), "grouped"))};
  }
};

template <>
struct RuleExample<MergeParallelConvs> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto ys = detail::parallel_convs_example(b, rng, 2);
    return std::move(b).build({b.relu(ys[0]), b.add(ys[1], ys[0])});
  }
};

template <>
struct RuleExample<ConcatConvsToGroupedConv> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto ys = detail::parallel_convs_example(b, rng, static_cast<std::size_t>(detail::pick(rng, {2, 3})));
    return std::move(b).build({b.concat(ys, 1)});
  }
};

}  // namespace autograph::rules
