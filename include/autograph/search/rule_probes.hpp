#pragma once
// Rule probes: measured rule attribution, our addition to AutoGraph's Algorithm 1. When a
// round's best-estimated candidate measures slower than the graph it came from (the cost
// policy and the runtime disagree), the rules it used are measured one at a time: each applied
// on its own wherever it matches (independent matches together, pass after pass), so the
// rules that make the graph slower alone can be left out of later rounds.
#include <algorithm>
#include <chrono>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "autograph/graph/structural_hash.hpp"
#include "autograph/rules/apply_independent.hpp"
#include "autograph/search/rewrite_trail.hpp"
#include "autograph/search/rule_stats.hpp"

namespace autograph {

/// One rule applied alone to a graph, and the measured result.
template <class Set>
struct RuleProbe {
  std::string rule;          // the rule's name
  std::vector<RuleId> ids;   // the engine's rules of that name not left out
  Graph<Set> graph;
  RewriteTrail trail;        // non-empty: a probe that rewrote nothing is not returned
  double latency = 0;        // `measure(graph)`
};

struct RuleProbeOptions {
  std::span<char const> left_out = {};  // left_out[rule] != 0: not probed
  rules::RewriteOptions rewrite{};
  int max_passes = 8;                   // passes of one rule at most
  RuleStatsRecorder* stats = nullptr;   // matches, rewrites and time per rule (none: not kept)
};

/// A probe for each rule of `trail` (by name, in name order), measured with `measure(graph)`.
/// Passes stop when the graph comes back to one already seen: a commutative rule
/// (commute-add) undoes itself every second pass.
/// @post every probe has a non-empty trail made of its own rule's ids only.
template <class Engine, class Measure>
std::vector<RuleProbe<typename Engine::OpSet>> probe_rules(Engine const& engine, Graph<typename Engine::OpSet> const& g, RewriteTrail const& trail,
                                                           Measure&& measure, RuleProbeOptions const& options = {}) {
  using Set = typename Engine::OpSet;
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  std::vector<RuleStats> stats(engine.size());
  std::vector<RuleProbe<Set>> probes;
  for (auto const& [name, count] : trail.counts([&](RuleId id) { return engine.name(id); })) {
    RuleProbe<Set> p{name, {}, g, {}, 0.0};
    for (RuleId i = 0; i < engine.size(); ++i)
      if (!(i < options.left_out.size() && options.left_out[i]) && engine.name(i) == name) p.ids.push_back(i);
    std::vector<Graph<Set>> seen{g};
    for (int pass = 0; pass < options.max_passes; ++pass) {
      std::vector<rules::FoundMatch> ms;
      for (RuleId i : p.ids) {
        auto t = Clock::now();
        auto found = engine.find_matches(p.graph, i);
        stats[i].match_seconds += since(t);
        stats[i].matches += found.size();
        std::ranges::move(found, std::back_inserter(ms));
      }
      auto t = Clock::now();
      auto res = rules::apply_independent(engine, p.graph, std::span<rules::FoundMatch const>(ms), options.rewrite);
      double share = since(t) / static_cast<double>(std::max<std::size_t>(1, res.applied.size()));
      for (std::size_t a : res.applied) {
        ++stats[ms[a].rule].rewrites;
        stats[ms[a].rule].apply_seconds += share;
      }
      if (res.applied.empty() || std::ranges::any_of(seen, [&](Graph<Set> const& h) { return structurally_equal(h, res.graph); })) break;
      p.graph = std::move(res.graph);
      seen.push_back(p.graph);
      for (std::size_t a : res.applied) p.trail = p.trail.then(ms[a].rule);
    }
    if (p.trail.size() == 0) continue;
    p.latency = measure(p.graph);
    probes.push_back(std::move(p));
  }
  if (options.stats) options.stats->add(stats);
  return probes;
}

}  // namespace autograph
