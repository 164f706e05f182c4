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
// reaches b, closes a cycle no single merge has. Each application is checked for that
// (rewrite() refuses a rewrite that closes a cycle).
#include <algorithm>
#include <iterator>
#include <optional>
#include <span>
#include <vector>

#include "autograph/rules/engine.hpp"

namespace autograph::rules {

template <class Set>
struct IndependentRewrites {
  Graph<Set> graph;
  std::vector<std::size_t> applied;  // positions in the given match list, in order of application
};

/// What apply_independent() needs of an engine: apply a match it found (RuleEngine, or one
/// rule alone: OneRule).
template <class E, class Set>
concept MatchApplier = requires(E const& e, Graph<Set> const& g, FoundMatch const& f, RewriteOptions const& o) {
  { e.apply(g, f, o) } -> std::same_as<std::optional<Rewritten<Set>>>;
  { e.find_matches(g) } -> std::same_as<std::vector<FoundMatch>>;
};

/// One rule as an engine of one (rule 0): matching and applying it instantiates only that rule,
/// not a RuleEngine's runtime (TASO) rules.
template <class Set, class R>
struct OneRule {
  R rule;
  std::size_t size() const { return 1; }
  std::string_view name(std::size_t) const { return rule_name(rule); }
  std::vector<FoundMatch> find_matches(Graph<Set> const& g) const {
    MatchIndex<Set> idx(g);
    std::vector<FoundMatch> out;
    for_each_match(rule, idx, [&](Match const& m) { out.push_back({0, m}); });
    return out;
  }
  std::vector<FoundMatch> find_matches(Graph<Set> const& g, std::uint32_t) const { return find_matches(g); }
  std::optional<Rewritten<Set>> apply(Graph<Set> const& g, FoundMatch const& f, RewriteOptions const& o = {}, std::string* why = nullptr) const {
    return rewrite(g, rule, f.match, o, why);
  }
};

/// Applies `matches` to `g` in the given order, skipping each match that touches what an
/// earlier applied one changed, and each whose target cannot be built.
template <class Set, MatchApplier<Set> Engine>
IndependentRewrites<Set> apply_independent(Engine const& engine, Graph<Set> const& g, std::span<FoundMatch const> matches,
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
    if (!r) continue;
    out.graph = std::move(r->graph);
    for (NodeId n : changes)
      if (n < touched.size()) touched[n] = 1;
    out.applied.push_back(i);
  }
  return out;
}

/// apply_independent(), and again for the matches it skipped, found anew on the rewritten
/// graph (the same rule matching the same nodes: an applied neighbour only re-wired their
/// inputs), until all are applied or a pass applies none. Fusing each convolution of a chain
/// conv → relu → conv → relu with its ReLU touches the next one's input, so one pass fuses
/// every other link; the passes take them all. `applied` positions refer to `matches`.
template <class Set, MatchApplier<Set> Engine>
IndependentRewrites<Set> apply_rebasing(Engine const& engine, Graph<Set> const& g, std::span<FoundMatch const> matches,
                                        RewriteOptions const& o = {}) {
  IndependentRewrites<Set> out{g, {}};
  std::vector<FoundMatch> pending(matches.begin(), matches.end());
  std::vector<std::size_t> origin(matches.size());  // pending[i] stands for matches[origin[i]]
  for (std::size_t i = 0; i < origin.size(); ++i) origin[i] = i;
  while (!pending.empty()) {
    auto r = apply_independent(engine, out.graph, std::span<FoundMatch const>(pending), o);
    if (r.applied.empty()) break;
    out.graph = std::move(r.graph);
    std::vector<char> done(pending.size(), 0);
    for (std::size_t i : r.applied) {
      out.applied.push_back(origin[i]);
      done[i] = 1;
    }
    // The skipped ones, re-found where their nodes still stand and their rule still matches.
    std::vector<FoundMatch> next;
    std::vector<std::size_t> next_origin;
    std::vector<std::uint32_t> searched;
    std::vector<FoundMatch> found;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      if (done[i] || !std::ranges::all_of(pending[i].match.nodes, [&](NodeId n) { return out.graph.contains(n); })) continue;
      if (std::ranges::find(searched, pending[i].rule) == searched.end()) {
        searched.push_back(pending[i].rule);
        std::ranges::move(engine.find_matches(out.graph, pending[i].rule), std::back_inserter(found));
      }
      auto same = std::ranges::find_if(found, [&](FoundMatch const& f) { return f.rule == pending[i].rule && f.match.nodes == pending[i].match.nodes; });
      if (same == found.end()) continue;
      next.push_back(*same);
      next_origin.push_back(origin[i]);
    }
    pending = std::move(next);
    origin = std::move(next_origin);
  }
  return out;
}

}  // namespace autograph::rules
