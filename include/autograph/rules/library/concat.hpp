#pragma once
// Moving elementwise ops across concatenation, and split/concat cancellation:
//   concat(f(a1), ..., f(an))              => f(concat(a1..an))                 unary-through-concat
//   concat(a1 o b1, ..., an o bn)          => concat(a1..an) o concat(b1..bn)   binary-through-concat
//   split(concat(x1..xn)) at the same cuts => x1..xn                            split-concat-cancel
//   concat(split(x)) of every piece, in order => x                              concat-split-cancel
// f is any unary elementwise op of the set (Relu, Sigmoid, Scale, user ops with `elementwise`),
// o any binary one; concats of any arity match.
#include <algorithm>

#include "autograph/rules/library/common.hpp"

namespace autograph::rules {

namespace detail {
template <class... Ops>
std::vector<void const*> elementwise_types(OpSet<Ops...>*, std::size_t arity) {
  std::vector<void const*> r;
  ((is_elementwise<Ops> && Ops::arity.min == arity && Ops::arity.max == arity ? r.push_back(AnyOp::type_id_of<Ops>()) : void()), ...);
  return r;
}
/// The elementwise operator types of Set taking exactly `Arity` inputs.
template <class Set, std::size_t Arity>
std::span<void const* const> elementwise_of() {
  static std::vector<void const*> const t = elementwise_types(static_cast<Set*>(nullptr), Arity);
  return t;
}
}  // namespace detail

/// concat(f(..), ..., f(..)) => f(concat(..), ...): every concat input is output 0 of a distinct
/// node of one elementwise type of this arity with equal parameters, each read only by the concat
/// (accept() checks that).
template <FixedString Name, std::size_t Arity>
struct ElementwiseThroughConcat : HandMatcher<Name, Concat> {
  using Base = HandMatcher<Name, Concat>;
  template <class Set>
  static void match(MatchIndex<Set> const& idx, NodeId root, MatchSink sink, char const** why = nullptr) {
    auto const& g = idx.graph();
    auto const& cat = g[root];
    if (cat.inputs.size() < 2) return Base::fail(why, "a concat of one value");
    auto types = detail::elementwise_of<Set, Arity>();
    Match m;
    for (Value v : cat.inputs) {
      auto const& n = g[v.node];
      if (std::ranges::find(types, n.op.type_id()) == types.end()) return Base::fail(why, "a concat input is not an elementwise op of this arity");
      if (m.contains(v.node)) return Base::fail(why, "an op feeds the concat twice");
      if (!m.nodes.empty() && !(n.op == g[m.node(0)].op)) return Base::fail(why, "the elementwise ops differ");
      if constexpr (Arity == 2) {
        // No broadcasting: concatenating the operands must line up with concatenating the results.
        if (g.desc(n.inputs[0]) != n.outputs[0] || g.desc(n.inputs[1]) != n.outputs[0]) return Base::fail(why, "the binary op broadcasts");
      }
      m.nodes.push_back(v.node);
    }
    m.nodes.push_back(root);
    m.outputs.push_back({root, 0});
    Base::offer(idx, m, sink, why);
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    NodeId root = m.nodes.back();
    Concat cat = detail::op_at<Concat>(g, root);
    std::string n = detail::derived_name(g, root, "hoisted");
    std::vector<Value> operands;
    for (std::size_t i = 0; i < Arity; ++i) {
      std::vector<Value> parts;
      for (std::size_t k = 0; k + 1 < m.nodes.size(); ++k) parts.push_back(g[m.node(k)].inputs[i]);
      operands.push_back(rw.add(cat, parts, n + ".cat" + std::to_string(i)));
    }
    return {rw.add(g[m.node(0)].op, operands, n)};
  }
};

using UnaryThroughConcat = ElementwiseThroughConcat<"unary-through-concat", 1>;
using BinaryThroughConcat = ElementwiseThroughConcat<"binary-through-concat", 2>;

struct SplitConcatCancel : HandMatcher<"split-concat-cancel", Split> {
  template <class Set>
  static void match(MatchIndex<Set> const& idx, NodeId root, MatchSink sink, char const** why = nullptr) {
    auto const& g = idx.graph();
    Value in = g[root].inputs[0];
    auto const* cat = g[in.node].op.template get_if<Concat>();
    if (!cat) return fail(why, "the split does not read a concat");
    auto const& split = detail::op_at<Split>(g, root);
    Shape const& s = g.desc(in).shape;
    std::size_t axis = s.normalize_axis(split.axis);
    if (s.normalize_axis(cat->axis) != axis) return fail(why, "split and concat are along different axes");
    auto const& parts = g[in.node].inputs;
    if (parts.size() != split.sizes.size()) return fail(why, "split and concat have different numbers of pieces");
    for (std::size_t i = 0; i < parts.size(); ++i)
      if (g.desc(parts[i]).shape[axis] != split.sizes[i]) return fail(why, "split and concat cut at different places");
    Match m;
    m.nodes.assign({in.node, root});
    for (std::uint32_t p = 0; p < parts.size(); ++p) m.outputs.push_back({root, p});
    offer(idx, m, sink, why);
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    return Target(rw.graph()[m.node(0)].inputs);
  }
};

struct ConcatSplitCancel : HandMatcher<"concat-split-cancel", Concat> {
  template <class Set>
  static void match(MatchIndex<Set> const& idx, NodeId root, MatchSink sink, char const** why = nullptr) {
    auto const& g = idx.graph();
    auto const& cat = g[root];
    NodeId s = cat.inputs[0].node;
    auto const* split = g[s].op.template get_if<Split>();
    if (!split) return fail(why, "the first concat input is not a split");
    if (cat.inputs.size() != g[s].outputs.size()) return fail(why, "the concat does not take every piece of the split");
    for (std::uint32_t p = 0; p < cat.inputs.size(); ++p)
      if (cat.inputs[p] != Value{s, p}) return fail(why, "the concat does not take the split's pieces in order");
    Shape const& xs = g.desc(g[s].inputs[0]).shape;
    if (xs.normalize_axis(split->axis) != xs.normalize_axis(detail::op_at<Concat>(g, root).axis)) return fail(why, "split and concat are along different axes");
    Match m;
    m.nodes.push_back(root);
    m.outputs.push_back({root, 0});
    offer(idx, m, sink, why);
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    return {g[g[m.node(0)].inputs[0].node].inputs[0]};
  }
};

template <>
struct RuleExample<UnaryThroughConcat> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    std::int64_t axis = detail::pick(rng, {0, 1, 2});
    std::vector<Value> parts;
    int kind = static_cast<int>(detail::pick(rng, {0, 1, 2}));
    for (std::int64_t i = 0, n = detail::pick(rng, {2, 3, 4}); i < n; ++i) {
      Shape s{3, 4, 5};
      s[static_cast<std::size_t>(axis)] = detail::pick(rng, {1, 2, 3});
      Value x = b.input("x" + std::to_string(i), s);
      parts.push_back(kind == 0 ? b.relu(x) : kind == 1 ? b.sigmoid(x) : b.scale(x, -1.f, 1.f));
    }
    return std::move(b).build({b.concat(parts, axis)});
  }
};

template <>
struct RuleExample<BinaryThroughConcat> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    std::int64_t axis = detail::pick(rng, {0, 1, -1});
    bool mul = detail::coin(rng);
    std::vector<Value> parts;
    Value shared = b.input("s", {2, 3, 4});
    for (std::int64_t i = 0, n = detail::pick(rng, {2, 3}); i < n; ++i) {
      Value x = b.input("x" + std::to_string(i), {2, 3, 4});
      Value y = i == 0 ? shared : b.input("y" + std::to_string(i), {2, 3, 4});
      parts.push_back(mul ? b.mul(x, y) : b.add(y, x));
    }
    return std::move(b).build({b.concat(parts, axis)});
  }
};

template <>
struct RuleExample<SplitConcatCancel> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    std::int64_t axis = detail::pick(rng, {0, 1});
    std::vector<Value> parts;
    std::vector<std::int64_t> sizes;
    for (std::int64_t i = 0, n = detail::pick(rng, {2, 3}); i < n; ++i) {
      sizes.push_back(detail::pick(rng, {1, 2, 3}));
      Shape s{4, 3};
      s[static_cast<std::size_t>(axis)] = sizes.back();
      parts.push_back(b.relu(b.input("x" + std::to_string(i), s)));
    }
    auto pieces = b.split(b.concat(parts, axis), axis, sizes);
    for (auto& p : pieces) p = b.sigmoid(p);
    return std::move(b).build(pieces);
  }
};

template <>
struct RuleExample<ConcatSplitCancel> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    std::int64_t axis = detail::pick(rng, {1, 2});
    std::vector<std::int64_t> sizes{detail::pick(rng, {1, 2}), detail::pick(rng, {2, 3}), 1};
    Shape s{2, 6, 6};
    Value x = b.relu(b.input("x", s));
    auto pieces = b.split(x, axis, detail::coin(rng) ? std::vector<std::int64_t>{6 - sizes[0], sizes[0]} : std::vector<std::int64_t>{sizes[0], sizes[1], 6 - sizes[0] - sizes[1]});
    Value side = b.tanh(pieces[0]);  // a piece also read elsewhere: the split stays
    return std::move(b).build({b.concat(pieces, axis), side});
  }
};

}  // namespace autograph::rules
