#pragma once
// Merging ops along channels, written once for every ChannelMergeable operator (Conv2D, MatMul,
// user ops that opt in):
//   op(x, w1), op(x, w2)          => split(op(x, concat(w1, w2)))           merge-sibling-ops
//   op(x, w1), ..., op(x, wk)     => split(op(x, concat(w1..wk))), k >= 3   merge-all-sibling-ops (BERT Q/K/V)
//   op(x1, w1) + op(x2, w2)       => op(concat(x1, x2), concat(w1, w2))     merge-input-channels
//   op(concat(x1, x2), w)         => op(x1, w[..C1]) + op(x2, w[C1..])      split-input-channels
#include <algorithm>

#include "autograph/rules/channel_merge.hpp"
#include "autograph/rules/library/common.hpp"

namespace autograph::rules {

namespace detail {

/// Shapes equal except along `axis`.
inline bool same_but(Shape const& a, Shape const& b, std::int64_t axis) {
  if (a.rank() != b.rank()) return false;
  for (std::size_t d = 0; d < a.rank(); ++d)
    if (static_cast<std::int64_t>(d) != axis && a[d] != b[d]) return false;
  return true;
}

/// Two ChannelMergeable nodes that merge along output channels: same type, mergeable ops, the
/// same data input, and per-channel inputs that differ only along their channel axis.
template <class Set>
Status siblings_merge(Graph<Set> const& g, NodeId a, NodeId b) {
  auto const* e = ChannelMergeTable<Set>::get().find(g[a].op.type_id());
  if (!e || g[b].op.type_id() != e->type) return no_match("the ops are of different types");
  if (!e->mergeable(g[a].op, g[b].op)) return no_match("the ops differ in more than their output channels");
  auto const& ia = g[a].inputs;
  auto const& ib = g[b].inputs;
  if (ia.size() != ib.size() || ia[0] != ib[0]) return no_match("the ops read different inputs");
  for (std::size_t i = 1; i < ia.size(); ++i) {
    Shape const& sa = g.desc(ia[i]).shape;
    if (!same_but(sa, g.desc(ib[i]).shape, e->channel_axis(i, sa))) return no_match("the weights differ in more than their channel axis");
  }
  return ok;
}

/// The merged op over concatenated per-channel inputs, split back into one value per sibling.
template <class Set>
Target merge_siblings(Rewriter<Set>& rw, std::span<NodeId const> nodes) {
  auto const& g = rw.graph();
  auto const* e = ChannelMergeTable<Set>::get().find(g[nodes[0]].op.type_id());
  std::string n = derived_name(g, nodes[0], "merged");
  AnyOp op = g[nodes[0]].op;
  std::vector<Value> in{g[nodes[0]].inputs[0]};
  for (std::size_t i = 1; i < g[nodes[0]].inputs.size(); ++i) {
    std::vector<Value> parts;
    for (NodeId s : nodes) parts.push_back(g[s].inputs[i]);
    in.push_back(rw.add(Concat{e->channel_axis(i, g.desc(parts[0]).shape)}, parts, n + ".in" + std::to_string(i)));
  }
  Value y = rw.add(op, in, n);
  Shape const& ys = g.desc(y).shape;
  std::int64_t axis = e->output_axis(ys);
  std::vector<std::int64_t> sizes;
  for (NodeId s : nodes) sizes.push_back(g[s].outputs[0].shape[static_cast<std::size_t>(axis)]);
  return Target(rw.add_multi(Split{axis, sizes}, {&y, 1}, n + ".split"));
}

template <class Set>
Graph<Set> siblings_example(std::mt19937_64& rng, std::size_t count) {
  GraphBuilder<Set> b;
  std::vector<Value> outs;
  if (coin(rng)) {
    auto x = b.input("x", {pick(rng, {1, 2}), pick(rng, {2, 3}), pick(rng, {4, 5}), pick(rng, {4, 6})});
    std::int64_t k = pick(rng, {1, 3}), s = pick(rng, {1, 2});
    bool bias = coin(rng);
    Activation act = coin(rng) ? Activation::relu : Activation::none;
    for (std::size_t i = 0; i < count; ++i) outs.push_back(b.conv2d(x, pick(rng, {1, 2, 4}), {k, k}, {.stride = {s, s}, .act = act, .bias = bias}));
  } else {
    auto x = b.input("x", {pick(rng, {2, 3}), pick(rng, {3, 4}), pick(rng, {4, 8})});
    Activation act = coin(rng) ? Activation::tanh : Activation::none;
    for (std::size_t i = 0; i < count; ++i) outs.push_back(b.linear(x, pick(rng, {2, 3, 5}), false, act));
  }
  for (auto& o : outs) o = b.relu(o);  // readers outside the match
  return std::move(b).build(outs);
}

}  // namespace detail

/// Each pair of mergeable siblings once, rooted at the op with the smaller id.
struct MergeSiblingOps : HandMatcher<"merge-sibling-ops"> {
  template <class Set>
  static std::span<void const* const> roots() {
    return ChannelMergeTable<Set>::get().types;
  }
  template <class Set>
  static void match(MatchIndex<Set> const& idx, NodeId a, MatchSink sink, char const** why = nullptr) {
    auto const& g = idx.graph();
    if (g[a].inputs.empty()) return fail(why, "the op has no data input");
    Value x = g[a].inputs[0];
    fail(why, "no op with a larger id reads the same data input");
    for (Use u : g.users(x.node)) {
      NodeId b = u.node;
      if (u.input != 0 || b <= a || g[b].inputs[0] != x) continue;
      if (Status s = detail::siblings_merge(g, a, b); !s) {
        fail(why, s.why);
        continue;
      }
      Match m;
      m.nodes = {a, b};
      m.vars = {x};
      m.outputs = {Value{a, 0}, Value{b, 0}};
      offer(idx, m, sink, why);
    }
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    return detail::merge_siblings(rw, std::span<NodeId const>(m.nodes.data(), 2));
  }
};

/// All k >= 3 mutually mergeable siblings at once (one match per group, rooted at its first op).
struct MergeAllSiblingOps : HandMatcher<"merge-all-sibling-ops"> {
  template <class Set>
  static std::span<void const* const> roots() {
    return ChannelMergeTable<Set>::get().types;
  }
  template <class Set>
  static void match(MatchIndex<Set> const& idx, NodeId root, MatchSink sink, char const** why = nullptr) {
    auto const& g = idx.graph();
    if (g[root].inputs.empty()) return fail(why, "the op has no data input");
    Value x = g[root].inputs[0];
    Match m;
    m.nodes.push_back(root);
    for (Use u : g.users(x.node)) {
      if (u.input != 0 || u.node == root || g[u.node].inputs[0] != x || m.contains(u.node)) continue;
      if (!detail::siblings_merge(g, root, u.node)) continue;
      if (u.node < root) return fail(why, "a mergeable sibling with a smaller id roots this group");
      m.nodes.push_back(u.node);
    }
    if (m.nodes.size() < 3) return fail(why, "fewer than three mergeable siblings (merge-sibling-ops merges pairs)");
    std::ranges::sort(m.nodes);
    for (NodeId n : m.nodes) m.outputs.push_back({n, 0});
    offer(idx, m, sink, why);
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    return detail::merge_siblings(rw, std::span<NodeId const>(m.nodes.data(), m.nodes.size()));
  }
};

namespace detail {
template <class Set>
Graph<Set> input_channels_example(std::mt19937_64& rng, bool concat_form) {
  GraphBuilder<Set> b;
  std::int64_t c1 = pick(rng, {1, 2, 3}), c2 = pick(rng, {2, 4});
  Value y;
  if (coin(rng)) {
    std::int64_t n = pick(rng, {1, 2}), h = pick(rng, {4, 5}), w = pick(rng, {3, 6}), k = pick(rng, {1, 3}), s = pick(rng, {1, 2}), out = pick(rng, {2, 3});
    auto x1 = b.input("x1", {n, c1, h, w});
    auto x2 = b.input("x2", {n, c2, h, w});
    ConvOptions o{.stride = {s, s}};
    if (concat_form) {
      y = b.conv2d(b.concat({x1, x2}, 1), out, {k, k}, o);
    } else {
      y = b.add(b.conv2d(x1, out, {k, k}, o), b.conv2d(x2, out, {k, k}, o));
    }
  } else {
    std::int64_t m = pick(rng, {2, 3}), out = pick(rng, {3, 5});
    Shape batch = coin(rng) ? Shape{m} : Shape{2, m};
    auto with = [&](std::int64_t c) {
      std::vector<std::int64_t> d(batch.begin(), batch.end());
      d.push_back(c);
      return Shape(d);
    };
    auto x1 = b.input("x1", with(c1));
    auto x2 = b.input("x2", with(c2));
    if (concat_form) {
      y = b.linear(b.concat({x1, x2}, -1), out, false);
    } else {
      y = b.add(b.linear(x1, out, false), b.linear(x2, out, false));
    }
  }
  return std::move(b).build({b.relu(y)});
}
}  // namespace detail

namespace detail {
/// Ops that sum over their input channels and merge along them (Conv2D, MatMul, opted-in user ops).
struct InputChannelMergeable {
  using op_class_tag = void;
  static constexpr std::string_view label = "InputChannelMergeable";
  template <class Set>
  static std::span<void const* const> types() {
    return ChannelMergeTable<Set>::get().input_types;
  }
};
/// The channel-merge entry of node n's operator type (null when it has none).
template <class Set>
auto const* merge_entry(Graph<Set> const& g, NodeId n) {
  return ChannelMergeTable<Set>::get().find(g[n].op.type_id());
}
}  // namespace detail

inline namespace library {
using namespace dsl;

struct MergeInputChannels : Rewrite<MergeInputChannels, "merge-input-channels"> {
  static constexpr Variable<8> x1{};
  static constexpr Variable<9> w1{};
  static constexpr Variable<10> x2{};
  static constexpr Variable<11> w2{};
  static constexpr auto pa = op<detail::InputChannelMergeable>(x1, w1);
  static constexpr auto pb = op<detail::InputChannelMergeable>(x2, w2);
  static constexpr auto sum = add(pa, pb);
  static constexpr auto from = sum.check([](auto const& m) {
    auto const& g = m.graph();
    auto const* e = detail::merge_entry(g, m.node(pa));
    if (!e || m[pb].type_id() != e->type || !e->input_mergeable(m[pa], m[pb])) return no_match("the two ops are not the same op over different input channels");
    Shape const &s1 = m.desc(x1).shape, &v1 = m.desc(w1).shape;
    if (!detail::same_but(s1, m.desc(x2).shape, e->input_axis(s1)) || !detail::same_but(v1, m.desc(w2).shape, e->weight_input_axis(v1)))
      return no_match("inputs or weights differ in more than their input channels");
    if (g[m.node(pa)].outputs[0] != g[m.node(pb)].outputs[0] || g[m.node(sum)].outputs[0] != g[m.node(pa)].outputs[0]) return no_match("the sum broadcasts");
    return ok;
  });
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = bind<Set>(rw, match);
    auto const* e = detail::merge_entry(m.graph(), m.node(pa));
    std::string n = detail::derived_name(m.graph(), m.node(sum), "merged");
    AnyOp op = m[pa];  // a copy: adding nodes may move the graph's storage
    Value x = rw.add(Concat{e->input_axis(m.desc(x1).shape)}, {m[x1], m[x2]}, n + ".x");
    Value w = rw.add(Concat{e->weight_input_axis(m.desc(w1).shape)}, {m[w1], m[w2]}, n + ".w");
    return {rw.add(op, {x, w}, n)};
  }
};

struct SplitInputChannels : Rewrite<SplitInputChannels, "split-input-channels"> {
  static constexpr Variable<8> x1{};
  static constexpr Variable<9> x2{};
  static constexpr auto cat = op<Concat>(x1, x2);
  static constexpr auto merged = op<detail::InputChannelMergeable>(cat, w);
  static constexpr auto from = merged.check([](auto const& m) {
    auto const* e = detail::merge_entry(m.graph(), m.node(merged));
    if (!e || !e->input_mergeable(m[merged], m[merged])) return no_match("the op does not sum over its input channels");
    Shape const& xs = m.graph()[m.node(cat)].outputs[0].shape;
    return to_status(static_cast<std::int64_t>(xs.normalize_axis(m[cat].axis)) == e->input_axis(xs), "the concat is not along the op's input channels");
  });
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = bind<Set>(rw, match);
    auto const* e = detail::merge_entry(m.graph(), m.node(merged));
    std::string n = detail::derived_name(m.graph(), m.node(merged), "split");
    Shape const& s1 = m.desc(x1).shape;
    Shape const& s2 = m.desc(x2).shape;
    auto ia = static_cast<std::size_t>(e->input_axis(s1));
    Value wv = m[w];
    auto ws = rw.add_multi(Split{e->weight_input_axis(m.desc(w).shape), {s1[ia], s2[ia]}}, {&wv, 1}, n + ".w");
    AnyOp op = m[merged];
    Value a = rw.add(op, {m[x1], ws[0]}, n + ".a");
    Value b = rw.add(op, {m[x2], ws[1]}, n + ".b");
    return {rw.add(Add{}, {a, b}, n)};
  }
};

}  // namespace library

template <>
struct RuleExample<MergeInputChannels> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    return detail::input_channels_example<Set>(rng, false);
  }
};

template <>
struct RuleExample<SplitInputChannels> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    return detail::input_channels_example<Set>(rng, true);
  }
};

template <>
struct RuleExample<MergeSiblingOps> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    return detail::siblings_example<Set>(rng, 2);
  }
};

template <>
struct RuleExample<MergeAllSiblingOps> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    return detail::siblings_example<Set>(rng, static_cast<std::size_t>(detail::pick(rng, {3, 4})));
  }
};

}  // namespace autograph::rules
