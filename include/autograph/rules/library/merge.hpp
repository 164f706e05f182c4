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

struct MergeSiblingOps : PatternRule<MergeSiblingOps> {
  static constexpr std::string_view name = "merge-sibling-ops";

  template <class Set>
  static Pattern<Set> source() {
    auto const& types = ChannelMergeTable<Set>::get().types;
    PatternBuilder<Set> p;
    Var x = p.var();
    auto a = p.op_of(types, {x}, "ChannelMergeable").extra_inputs();
    auto b = p.op_of(types, {x}, "ChannelMergeable").extra_inputs();
    p.order(a, b);
    p.root(a);
    p.output(a);
    p.output(b);
    p.check([](Graph<Set> const& g, Match const& m) { return detail::siblings_merge(g, m.node(0), m.node(1)); });
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    return detail::merge_siblings(rw, std::span<NodeId const>(m.nodes.data(), 2));
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    return detail::siblings_example<Set>(rng, 2);
  }
};

/// All k >= 3 mutually mergeable siblings at once (one match per group, rooted at its first op).
struct MergeAllSiblingOps {
  static constexpr std::string_view name = "merge-all-sibling-ops";

  template <class Set>
  static std::span<void const* const> roots() {
    return ChannelMergeTable<Set>::get().types;
  }
  template <class Set>
  static void match(MatchIndex<Set> const& idx, NodeId root, MatchSink sink, char const** why = nullptr) {
    auto const& g = idx.graph();
    auto fail = [&](char const* r) {
      if (why) *why = r;
    };
    if (g[root].inputs.empty()) return fail("the op has no data input");
    Value x = g[root].inputs[0];
    Match m;
    m.nodes.push_back(root);
    for (Use u : g.users(x.node)) {
      if (u.input != 0 || u.node == root || g[u.node].inputs[0] != x || m.contains(u.node)) continue;
      if (!detail::siblings_merge(g, root, u.node)) continue;
      if (u.node < root) return fail("a mergeable sibling with a smaller id roots this group");
      m.nodes.push_back(u.node);
    }
    if (m.nodes.size() < 3) return fail("fewer than three mergeable siblings (merge-sibling-ops merges pairs)");
    std::ranges::sort(m.nodes);
    for (NodeId n : m.nodes) m.outputs.push_back({n, 0});
    if (Status s = accept(idx, m); !s) return fail(s.why);
    sink(m);
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    return detail::merge_siblings(rw, std::span<NodeId const>(m.nodes.data(), m.nodes.size()));
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    return detail::siblings_example<Set>(rng, static_cast<std::size_t>(detail::pick(rng, {3, 4})));
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

struct MergeInputChannels : PatternRule<MergeInputChannels> {
  static constexpr std::string_view name = "merge-input-channels";

  template <class Set>
  static Pattern<Set> source() {
    auto const& types = ChannelMergeTable<Set>::get().input_types;
    PatternBuilder<Set> p;
    Var x1 = p.var(), w1 = p.var(), x2 = p.var(), w2 = p.var();
    auto a = p.op_of(types, {x1, w1}, "InputChannelMergeable");
    auto b = p.op_of(types, {x2, w2}, "InputChannelMergeable");
    auto sum = p.op(is<Add>, {a, b});
    p.output(sum);
    p.check([](Graph<Set> const& g, Match const& m) {
      auto const* e = ChannelMergeTable<Set>::get().find(g[m.node(0)].op.type_id());
      if (!e || g[m.node(1)].op.type_id() != e->type || !e->input_mergeable(g[m.node(0)].op, g[m.node(1)].op))
        return no_match("the two ops are not the same op over different input channels");
      Shape const &x1 = g.desc(m.var(0)).shape, &w1 = g.desc(m.var(1)).shape;
      if (!detail::same_but(x1, g.desc(m.var(2)).shape, e->input_axis(x1)) || !detail::same_but(w1, g.desc(m.var(3)).shape, e->weight_input_axis(w1)))
        return no_match("inputs or weights differ in more than their input channels");
      if (g[m.node(0)].outputs[0] != g[m.node(1)].outputs[0] || g[m.node(2)].outputs[0] != g[m.node(0)].outputs[0])
        return no_match("the sum broadcasts");
      return ok;
    });
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    auto const* e = ChannelMergeTable<Set>::get().find(g[m.node(0)].op.type_id());
    std::string n = detail::derived_name(g, m.node(2), "merged");
    Value x = rw.add(Concat{e->input_axis(g.desc(m.var(0)).shape)}, {m.var(0), m.var(2)}, n + ".x");
    Value w = rw.add(Concat{e->weight_input_axis(g.desc(m.var(1)).shape)}, {m.var(1), m.var(3)}, n + ".w");
    return {rw.add(g[m.node(0)].op, {x, w}, n)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    return detail::input_channels_example<Set>(rng, false);
  }
};

struct SplitInputChannels : PatternRule<SplitInputChannels> {
  static constexpr std::string_view name = "split-input-channels";

  template <class Set>
  static Pattern<Set> source() {
    auto const& types = ChannelMergeTable<Set>::get().input_types;
    PatternBuilder<Set> p;
    Var x1 = p.var(), x2 = p.var(), w = p.var();
    auto cat = p.op(is<Concat>, {x1, x2});
    auto op = p.op_of(types, {cat, w}, "InputChannelMergeable");
    p.output(op);
    p.check([](Graph<Set> const& g, Match const& m) {
      auto const* e = ChannelMergeTable<Set>::get().find(g[m.node(1)].op.type_id());
      if (!e || !e->input_mergeable(g[m.node(1)].op, g[m.node(1)].op)) return no_match("the op does not sum over its input channels");
      Shape const& xs = g[m.node(0)].outputs[0].shape;
      if (static_cast<std::int64_t>(xs.normalize_axis(detail::op_at<Concat>(g, m.node(0)).axis)) != e->input_axis(xs))
        return no_match("the concat is not along the op's input channels");
      return ok;
    });
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    auto const* e = ChannelMergeTable<Set>::get().find(g[m.node(1)].op.type_id());
    std::string n = detail::derived_name(g, m.node(1), "split");
    Shape const& x1 = g.desc(m.var(0)).shape;
    Shape const& x2 = g.desc(m.var(1)).shape;
    auto ia = static_cast<std::size_t>(e->input_axis(x1));
    Value w = m.var(2);
    auto ws = rw.add_multi(Split{e->weight_input_axis(g.desc(w).shape), {x1[ia], x2[ia]}}, {&w, 1}, n + ".w");
    AnyOp op = g[m.node(1)].op;
    Value a = rw.add(op, {m.var(0), ws[0]}, n + ".a");
    Value b = rw.add(op, {m.var(1), ws[1]}, n + ".b");
    return {rw.add(Add{}, {a, b}, n)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    return detail::input_channels_example<Set>(rng, true);
  }
};

}  // namespace autograph::rules
