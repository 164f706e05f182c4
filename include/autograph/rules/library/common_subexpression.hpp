#pragma once
// Common subexpression elimination:
//   f(x1..xn), f(x1..xn)  =>  f(x1..xn)  (the later node's readers read the earlier one)  eliminate-common-subexpression
// for any non-source op f of the set, with equal attributes and the very same inputs in the same
// order. Models built branch by branch repeat work: NASNet-A applies its own ReLU to a cell
// input in every separable branch that reads it, and pools it in several branches, so the
// zoo's NASNet-A Mobile has 76 such duplicates (60 ReLUs, 12 average and 4 max pools) and
// RandWire 18 (17 ReLUs, one Add). onnxruntime removes them before it runs a model (its
// CommonSubexpressionElimination, a level-1 graph optimization: onnxruntime.ai, "Graph
// Optimizations in ONNX Runtime"); every kernel removed is one launch and one pass over its
// tensor less, and the duplicates are small kernels, where dispatch weighs most.
//
// Sources never match: two Weights of one shape hold different data, two Inputs are different
// inputs. No cycle can arise: the kept node reads only the inputs the removed one read, which
// precede every reader of the removed node.
#include <span>
#include <vector>

#include "autograph/rules/library/common.hpp"

namespace autograph::rules {

namespace detail {
/// The type ids of a set's non-source ops (every op that can have a duplicate).
template <class... Ops>
std::span<void const* const> non_source_types(OpSet<Ops...> const*) {
  static std::vector<void const*> const types = [] {
    std::vector<void const*> t;
    ((is_source_op<Ops> ? void() : t.push_back(AnyOp::type_id_of<Ops>())), ...);
    return t;
  }();
  return types;
}
}  // namespace detail

inline namespace library {

/// Rooted at the later of two identical nodes; the earlier one (the first of all when there
/// are several) is kept, so every duplicate of a group maps to the same node.
struct EliminateCommonSubexpression : HandMatcher<"eliminate-common-subexpression"> {
  template <class Set>
  static std::span<void const* const> roots() {
    return detail::non_source_types(static_cast<Set const*>(nullptr));
  }
  template <class Set>
  static void match(MatchIndex<Set> const& idx, NodeId root, MatchSink sink, char const** why = nullptr) {
    auto const& g = idx.graph();
    auto const& n = g[root];
    if (n.inputs.empty()) return fail(why, "the op has no inputs");
    NodeId kept = root;
    for (Use u : g.users(n.inputs[0].node))
      if (u.node < kept && g[u.node].inputs == n.inputs && g[u.node].op == n.op) kept = u.node;
    if (kept == root) return fail(why, "no op with a smaller id computes the same op of the same inputs");
    Match m;
    m.nodes = {root};
    for (std::uint32_t p = 0; p < n.outputs.size(); ++p) {
      m.outputs.push_back({root, p});
      m.vars.push_back({kept, p});  // what the readers read instead
    }
    offer(idx, m, sink, why);
  }
  template <class Set>
  static Target apply(Rewriter<Set>&, Match const& m) {
    return Target(m.vars);
  }
};

}  // namespace library

template <>
struct RuleExample<EliminateCommonSubexpression> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto x = b.input("x", {detail::pick(rng, {1, 2}), detail::pick(rng, {2, 3}), detail::pick(rng, {4, 5}), detail::pick(rng, {4, 6})});
    auto twice = [&](auto f) { return std::pair{f(), f()}; };
    std::pair<Value, Value> y;
    switch (detail::pick(rng, {0, 1, 2})) {
      case 0: y = twice([&] { return b.relu(x); }); break;
      case 1: y = twice([&] { return b.max_pool(x, {3, 3}, {.stride = {2, 2}, .pad = {1, 1, 1, 1}}); }); break;
      default: y = twice([&] { return b.add(x, b.sigmoid(x)); }); break;  // the Sigmoids merge first, then the Adds
    }
    // Readers of each duplicate, and one duplicate a graph output too.
    return std::move(b).build({b.add(b.relu(y.first), b.sigmoid(y.second)), y.second});
  }
};

}  // namespace autograph::rules
