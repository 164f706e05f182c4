#pragma once
// The matcher: every mapping of a pattern whose root is a given graph node, and the checks every
// match of every rule must pass before it is reported (accept()):
//  - variables are consistent (one variable, one value) and external: no variable is bound to
//    the output of a matched node;
//  - the hyper-edge rule: a matched value read outside the match (or a graph output) must be a
//    mapped output, or the rewrite would drop a live value;
//  - no cycle: no external input of the match may be reachable from a matched node, or the
//    target (which reads the inputs and feeds the readers of the outputs) would close a loop.
#include <algorithm>
#include <vector>

#include "autograph/rules/match_index.hpp"
#include "autograph/rules/pattern.hpp"

namespace autograph::rules {

using MatchSink = FunctionRef<void(Match const&)>;

/// The checks every match must pass (see the file comment). `outputs` are the mapped outputs.
template <class Set>
Status accept(MatchIndex<Set> const& idx, Match const& m) {
  auto const& g = idx.graph();
  for (NodeId n : m.nodes) {
    for (Use u : g.users(n)) {
      if (m.contains(u.node)) continue;
      if (!m.maps(g[u.node].inputs[u.input])) return no_match("a matched intermediate value is read outside the match");
    }
  }
  for (Value o : g.outputs())
    if (m.contains(o.node) && !m.maps(o)) return no_match("a matched intermediate value is a graph output");
  // External inputs of the match: cycle check against every matched node.
  for (NodeId n : m.nodes)
    for (Value in : g[n].inputs) {
      if (m.contains(in.node) || g[in.node].inputs.empty()) continue;  // internal, or a source: nothing leads to it
      for (NodeId k : m.nodes)
        if (idx.reaches(k, in.node)) return no_match("the rewrite would create a cycle (an input of the match depends on a matched op)");
    }
  return ok;
}

namespace detail {

template <class Set>
class PatternMatcher {
 public:
  using P = Pattern<Set>;
  PatternMatcher(P const& p, MatchIndex<Set> const& idx, MatchSink sink, char const** why)
      : p_(p), idx_(idx), g_(idx.graph()), sink_(sink), why_(why), node_(p.nodes.size(), no_node), swapped_(p.nodes.size(), 0),
        var_(p.num_vars, Value{}) {}

  void run(NodeId root) {
    try_bind(0, p_.root, root, false);
    if (p_.nodes[p_.root].commutative) try_bind(0, p_.root, root, true);
  }

 private:
  bool fail(char const* why) {
    if (why_) *why_ = why;
    return false;
  }
  std::uint32_t graph_slot(std::uint32_t pn, std::uint32_t slot) const {
    return p_.nodes[pn].commutative && swapped_[pn] ? 1 - slot : slot;
  }
  Value resolve(Operand o) const { return o.kind == Operand::Kind::var ? var_[o.index] : Value{node_[o.index], o.port}; }

  // Binds pattern node pn to graph node n (operands swapped or not), checks everything that
  // involves pn and already-bound nodes, recurses into the next step, and unbinds.
  void try_bind(std::size_t step, std::uint32_t pn, NodeId n, bool swap) {
    auto const& pnode = p_.nodes[pn];
    auto const& gnode = g_[n];
    if (std::ranges::find(pnode.types, gnode.op.type_id()) == pnode.types.end()) return void(fail("operator type differs"));
    for (NodeId other : node_)
      if (other == n) return void(fail("the node is already matched to another op of the pattern"));
    std::size_t arity = pnode.inputs.size();
    if (gnode.inputs.size() < arity || (!pnode.extra_inputs && gnode.inputs.size() != arity))
      return void(fail("number of inputs differs"));
    node_[pn] = n;
    swapped_[pn] = swap;
    boost::container::small_vector<std::uint32_t, 4> newly_bound;
    bool good = true;
    for (std::uint32_t j = 0; j < arity && good; ++j) {
      Operand o = pnode.inputs[j];
      Value gv = gnode.inputs[graph_slot(pn, j)];
      if (o.kind == Operand::Kind::var) {
        if (var_[o.index].node == no_node) {
          var_[o.index] = gv;
          newly_bound.push_back(o.index);
        } else if (var_[o.index] != gv) {
          good = fail("a variable used twice is bound to two different values");
        }
      } else if (node_[o.index] != no_node && Value{node_[o.index], o.port} != gv) {
        good = fail("an edge of the pattern is missing in the graph");
      }
    }
    for (auto const& r : p_.readers[pn]) {  // bound readers of pn must read it
      if (!good) break;
      if (node_[r.node] == no_node) continue;
      if (g_[node_[r.node]].inputs[graph_slot(r.node, r.slot)] != Value{n, r.port}) good = fail("an edge of the pattern is missing in the graph");
    }
    for (auto const& check : pnode.checks) {
      if (!good) break;
      if (Status s = check(g_, n); !s) good = fail(s.why);
    }
    if (good) next(step + 1);
    for (auto v : newly_bound) var_[v] = Value{};
    node_[pn] = no_node;
  }

  void next(std::size_t step) {
    if (step == p_.plan.size()) return finish();
    auto const& s = p_.plan[step];
    auto const& pnode = p_.nodes[s.node];
    bool both = pnode.commutative;
    switch (s.how) {
      case P::How::root: break;
      case P::How::input_of: {
        Operand o = p_.nodes[s.anchor].inputs[s.slot];
        Value gv = g_[node_[s.anchor]].inputs[graph_slot(s.anchor, s.slot)];
        if (gv.port != o.port) return void(fail("an edge of the pattern leaves from another output"));
        try_bind(step, s.node, gv.node, false);
        if (both) try_bind(step, s.node, gv.node, true);
        break;
      }
      case P::How::user_of: {
        Value v = resolve(s.operand);
        auto users = g_.users(v.node);
        // Copy: binding never edits the graph, but the span must outlive recursion safely.
        boost::container::small_vector<Use, 8> us(users.begin(), users.end());
        for (Use u : us) {
          if (g_[u.node].inputs[u.input] != v) continue;
          if (u.input == s.slot) try_bind(step, s.node, u.node, false);
          if (both && u.input == 1 - s.slot) try_bind(step, s.node, u.node, true);
        }
        break;
      }
      case P::How::by_type:
        for (void const* t : pnode.types)
          for (NodeId n : idx_.nodes_of(t)) {
            if (idx_.weight_only(n)) continue;
            try_bind(step, s.node, n, false);
            if (both) try_bind(step, s.node, n, true);
          }
        break;
    }
  }

  void finish() {
    for (auto [a, b] : p_.ordered)
      if (node_[a] >= node_[b]) return void(fail("interchangeable ops are matched in one order only"));
    for (Value v : var_)
      if (std::ranges::find(node_, v.node) != node_.end()) return void(fail("a variable is bound to the output of a matched op"));
    m_.nodes.assign(node_.begin(), node_.end());
    m_.vars.assign(var_.begin(), var_.end());
    m_.outputs.clear();
    for (Operand o : p_.outputs) m_.outputs.push_back(resolve(o));
    for (auto const& check : p_.checks)
      if (Status s = check(g_, m_); !s) return void(fail(s.why));
    if (Status s = accept(idx_, m_); !s) return void(fail(s.why));
    sink_(m_);
  }

  P const& p_;
  MatchIndex<Set> const& idx_;
  Graph<Set> const& g_;
  MatchSink sink_;
  char const** why_;
  boost::container::small_vector<NodeId, 8> node_;
  boost::container::small_vector<char, 8> swapped_;
  boost::container::small_vector<Value, 8> var_;
  Match m_;
};

}  // namespace detail

/// Calls `sink` once for every mapping of `p` whose root node is `root`. When `why` is given,
/// it receives the reason the last candidate was rejected (explain()).
template <class Set>
void match_pattern(Pattern<Set> const& p, MatchIndex<Set> const& idx, NodeId root, MatchSink sink, char const** why = nullptr) {
  detail::PatternMatcher<Set> m(p, idx, sink, why);
  m.run(root);
}

#if defined(AUTOGRAPH_PRECOMPILED)
// src/defaults/rules_core.cpp: the matcher compiled once, not in every file that matches.
extern template Status accept<BuiltinOps>(MatchIndex<BuiltinOps> const&, Match const&);
extern template void match_pattern<BuiltinOps>(Pattern<BuiltinOps> const&, MatchIndex<BuiltinOps> const&, NodeId, MatchSink, char const**);
#endif

}  // namespace autograph::rules
