#pragma once
// The pattern generator (Collage §3, Fig. 4): every group of a graph that some backend can run.
// - A pattern (Method 1) contributes each of its matches (rules/matcher.hpp).
// - A pattern rule (Method 2) contributes every group grown from one of its nodes: starting
//   from each node valid_op() accepts, the generator adds one neighbouring valid node (a
//   reader or a producer) at a time, keeps the groups that are convex and that fusion()
//   accepts, and grows those further, up to the rule's max_size.
// Then each backend's can_run() drops the groups it cannot run, so the DP never chooses them.
#include <cstdint>
#include <span>
#include <unordered_set>
#include <vector>

#include "autograph/core/hash.hpp"
#include "autograph/graph/graph_facts.hpp"
#include "autograph/placement/backend_registry.hpp"
#include "autograph/rules/match_index.hpp"
#include "autograph/rules/matcher.hpp"

namespace autograph::placement {

struct GeneratorOptions {
  std::size_t max_groups_per_seed = 4096;  // per rule and seed node: bounds the growth on dense elementwise regions
};

/// What the generator did for one backend.
struct GeneratorStats {
  std::string backend;
  std::size_t from_patterns = 0;  // groups matched by the backend's patterns
  std::size_t from_rules = 0;     // groups grown by its pattern rules (not already matched)
  std::size_t rejected = 0;       // groups can_run() refused
  std::size_t truncated_seeds = 0;  // seeds whose growth stopped at max_groups_per_seed
};

struct GeneratedCandidates {
  std::vector<Candidate> candidates;
  std::vector<GeneratorStats> stats;  // one per backend, in registry order
};

namespace detail {
struct GroupKeyHash {
  std::size_t operator()(std::vector<NodeId> const& v) const {
    std::uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (NodeId n : v) h = hash_combine(h, n);
    return static_cast<std::size_t>(h);
  }
};
using GroupSet = std::unordered_set<std::vector<NodeId>, GroupKeyHash>;

template <class Set>
void grow_rule(GraphFacts<Set> const& facts, PatternRule<Set> const& rule, GeneratorOptions const& o, GroupSet& found,
               std::vector<std::pair<std::vector<NodeId>, std::string>>& out, GeneratorStats& stats) {
  auto const& g = facts.graph();
  std::vector<char> valid(g.id_bound(), 0);
  for (NodeId n : facts.placed_nodes()) valid[n] = rule.valid_op(g, n) ? 1 : 0;
  for (NodeId seed : facts.placed_nodes()) {
    if (!valid[seed]) continue;
    GroupSet seen;  // groups considered from this seed (accepted or not)
    std::vector<std::vector<NodeId>> work{{seed}};
    seen.insert(work.back());
    std::size_t produced = 0;
    while (!work.empty()) {
      std::vector<NodeId> group = std::move(work.back());
      work.pop_back();
      if (!rule.fusion(g, std::span<NodeId const>(group))) continue;
      if (found.insert(group).second) {
        out.emplace_back(group, rule.name);
        ++stats.from_rules;
      }
      if (++produced >= o.max_groups_per_seed) {
        ++stats.truncated_seeds;
        break;
      }
      if (group.size() >= rule.max_size) continue;
      auto consider = [&](NodeId m) {
        if (!valid[m] || std::ranges::binary_search(group, m)) return;
        std::vector<NodeId> bigger = group;
        bigger.insert(std::ranges::upper_bound(bigger, m), m);
        if (!seen.insert(bigger).second) return;
        if (facts.convex(bigger)) work.push_back(std::move(bigger));
      };
      for (NodeId n : group) {
        for (Use u : g.users(n)) consider(u.node);
        for (Value in : g[n].inputs) consider(in.node);
      }
    }
  }
}
}  // namespace detail

/// Every candidate group of every backend on `facts.graph()`, each backend's groups once
/// (a group two backends can run is two candidates).
template <class Set>
GeneratedCandidates generate_candidates(GraphFacts<Set> const& facts, BackendRegistry<Set> const& backends, GeneratorOptions const& o = {}) {
  auto const& g = facts.graph();
  rules::MatchIndex<Set> idx(g);
  GeneratedCandidates r;
  for (std::uint32_t b = 0; b < backends.size(); ++b) {
    auto const& backend = backends[b];
    GeneratorStats stats{.backend = backend.name};
    detail::GroupSet found;
    std::vector<std::pair<std::vector<NodeId>, std::string>> groups;
    for (auto const& [name, pattern] : backend.spec.patterns()) {
      for (void const* type : pattern.nodes[pattern.root].types)
        for (NodeId root : idx.nodes_of(type)) {
          if (!facts.placed(root)) continue;
          rules::match_pattern(pattern, idx, root, [&](rules::Match const& m) {
            std::vector<NodeId> nodes(m.nodes.begin(), m.nodes.end());
            std::ranges::sort(nodes);
            if (!std::ranges::all_of(nodes, [&](NodeId n) { return facts.placed(n); })) return;
            if (found.insert(nodes).second) {
              groups.emplace_back(std::move(nodes), name);
              ++stats.from_patterns;
            }
          });
        }
    }
    for (auto const& rule : backend.spec.rules()) detail::grow_rule(facts, rule, o, found, groups, stats);
    for (auto& [nodes, pattern] : groups) {
      NodeGroup group{std::move(nodes)};
      if (!backend.can_run(g, group)) {
        ++stats.rejected;
        continue;
      }
      r.candidates.push_back(Candidate{std::move(group), b, std::move(pattern)});
    }
    r.stats.push_back(std::move(stats));
  }
  return r;
}

#if defined(AUTOGRAPH_PRECOMPILED)
extern template GeneratedCandidates generate_candidates<BuiltinOps>(GraphFacts<BuiltinOps> const&, BackendRegistry<BuiltinOps> const&,
                                                                    GeneratorOptions const&);  // src/defaults/placement.cpp
#endif

}  // namespace autograph::placement
