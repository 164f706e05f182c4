#pragma once
// apply_independent(): many matches of one graph applied together, as long as they cannot
// interfere. Search uses it to take every improving rewrite of an expansion in one step (a
// graph with 47 foldable BatchNorms is one step away from all of them folded, not 47), and
// the optimizer uses it to measure what one rule does to a whole graph.
//
// Why it is safe: a match is a promise about its own nodes (their ops, inputs and readers).
// A rewrite changes its matched nodes, the readers of their outputs (re-wired to the target)
// and the producers of its variables (they gain readers). Node ids are never reused, so a
// later match whose nodes avoid all of those still describes the graph exactly as when it
// was found, and applying it there is the same rewrite as applying it to the original.
// Independent is not acyclic, though: merging a with b and c with d, where a reaches c and d
// reaches b, closes a cycle no single merge has. Each application is checked for that.
#include <span>
#include <vector>

#include "autograph/rules/engine.hpp"

namespace autograph::rules {

/// Whether `g` has a cycle through one of `added` (a rewrite's new nodes: a cycle it closed
/// passes through one of them). Depth-first along readers from each, iteratively.
template <class Set>
bool closes_cycle(Graph<Set> const& g, std::span<NodeId const> added) {
  enum : char { unseen, open, done };
  std::vector<char> state(g.id_bound(), unseen);
  std::vector<std::pair<NodeId, std::size_t>> stack;  // (node, next reader to visit)
  for (NodeId root : added) {
    if (!g.contains(root) || state[root] != unseen) continue;
    state[root] = open;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      auto readers = g.users(n);
      if (next == readers.size()) {
        state[n] = done;
        stack.pop_back();
        continue;
      }
      NodeId u = readers[next++].node;
      if (state[u] == open) return true;
      if (state[u] == unseen) {
        state[u] = open;
        stack.emplace_back(u, 0);
      }
    }
  }
  return false;
}

template <class Set>
struct IndependentRewrites {
  Graph<Set> graph;
  std::vector<std::size_t> applied;  // positions in the given match list, in order of application
};

/// Applies `matches` to `g` in the given order, skipping each match that touches what an
/// earlier applied one changed, and each whose target cannot be built.
template <class Set, class List>
IndependentRewrites<Set> apply_independent(RuleEngine<Set, List> const& engine, Graph<Set> const& g, std::span<FoundMatch const> matches,
                                           RewriteOptions const& o = {}) {
  IndependentRewrites<Set> out{g, {}};
  std::vector<char> touched(g.id_bound(), 0);
  auto is_touched = [&](NodeId n) { return n < touched.size() && touched[n]; };
  for (std::size_t i = 0; i < matches.size(); ++i) {
    Match const& m = matches[i].match;
    if (std::ranges::any_of(m.nodes, is_touched)) continue;
    // An earlier rewrite may have removed a node it did not match (a producer it left dead).
    if (!std::ranges::all_of(m.nodes, [&](NodeId n) { return out.graph.contains(n); })) continue;
    if (!std::ranges::all_of(m.vars, [&](Value v) { return out.graph.contains(v); })) continue;
    // What this rewrite will change, read before it changes it.
    std::vector<NodeId> changes(m.nodes.begin(), m.nodes.end());
    for (NodeId n : m.nodes)
      for (Use u : out.graph.users(n)) changes.push_back(u.node);
    for (Value v : m.vars) changes.push_back(v.node);
    auto r = engine.apply(out.graph, matches[i], o);
    if (!r || closes_cycle(r->graph, std::span<NodeId const>(r->changes.added))) continue;
    out.graph = std::move(r->graph);
    for (NodeId n : changes)
      if (n < touched.size()) touched[n] = 1;
    out.applied.push_back(i);
  }
  return out;
}

}  // namespace autograph::rules
