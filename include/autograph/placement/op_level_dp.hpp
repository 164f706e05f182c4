#pragma once
// The op-level placement optimizer (Collage §4.2, Algorithm 1, Eq. 3–4): the cheapest cover of
// a graph by candidate groups, where a placement costs the sum of its groups' measured costs
// plus a constant epsilon per group (Eq. 2).
//
// A DP state is a set s of placed nodes closed under producers (every producer of a placed
// node is placed), so s can run first and C_opt(s) is its cost; from s, a group can be placed
// next when it is disjoint from s and its producers outside it are in s. Every order in which
// a cover's groups can run passes through such states, and Dijkstra's order (costs >= 0)
// settles each state once at its C_opt: Eq. 3 read forwards, memoised on the set of placed
// nodes. Collage's frontier keeps the expansions few: the frontier node f of s is its first
// unplaced node in a fixed topological order (all its producers are placed). The group G that
// covers f in a cover completing s either can be placed now, or waits for unplaced producers
// (a residual Add fused with one branch waits for the other branch); then some group of the
// cover that can be placed now contains an ancestor of those producers. So the DP expands
// only the groups containing f and the groups containing an unplaced ancestor of a waiting
// group of f, and still reaches every cover (by induction over the cover's groups).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/core/hash.hpp"
#include "autograph/graph/graph_facts.hpp"
#include "autograph/placement/placement.hpp"

namespace autograph::placement {

struct DpOptions {
  double epsilon = 0;  // Eq. 2's context-switching cost per group, in the cost's unit
};

/// The cheapest placement of `facts.graph()` by `candidates`, costed by `cost(candidate)` (a
/// measurer; called at most once per candidate, and only for candidates the DP reaches; an
/// infinite cost means the backend cannot run the group). `backends`: names by index.
/// @throws Error naming a node no candidate covers, or when no cover of finite cost exists.
/// (The cost is a std::function: it is called at most once per candidate, and the DP is then
/// compiled once per operator set, in src/defaults/placement.cpp for the built-in one.)
template <class Set>
Placement op_level_dp(GraphFacts<Set> const& facts, std::span<Candidate const> candidates, std::vector<std::string> backends,
                      std::function<double(Candidate const&)> const& cost, DpOptions const& o = {}) {
  auto const start = std::chrono::steady_clock::now();
  auto const& g = facts.graph();
  auto const placed = facts.placed_nodes();
  auto const n = static_cast<std::uint32_t>(placed.size());
  std::vector<std::uint32_t> dense(g.id_bound(), GraphFacts<Set>::npos);
  for (std::uint32_t i = 0; i < n; ++i) dense[placed[i]] = i;

  // Per candidate: its nodes and its outside producers, as dense indices; indexed by first node.
  struct Prepared {
    std::vector<std::uint32_t> nodes, producers;
  };
  std::vector<Prepared> prep(candidates.size());
  std::vector<std::vector<std::uint32_t>> by_node(n);  // candidates containing each node
  std::vector<std::vector<std::uint32_t>> producers(n);
  for (std::uint32_t i = 0; i < n; ++i)
    for (Value in : g[placed[i]].inputs)
      if (facts.placed(in.node)) producers[i].push_back(dense[in.node]);
  for (std::uint32_t c = 0; c < candidates.size(); ++c) {
    auto const& grp = candidates[c].group;
    if (grp.nodes.empty()) throw Error("op-level placement: candidate " + std::to_string(c) + " (" + candidates[c].pattern + ") is empty");
    for (NodeId v : grp.nodes) {
      if (!facts.placed(v))
        throw Error("op-level placement: candidate '" + candidates[c].pattern + "' contains " + g.label(v) + ", which no backend places");
      prep[c].nodes.push_back(dense[v]);
      for (Value in : g[v].inputs)
        if (facts.placed(in.node) && !grp.contains(in.node)) prep[c].producers.push_back(dense[in.node]);
    }
    std::ranges::sort(prep[c].nodes);
    for (std::uint32_t i : prep[c].nodes) by_node[i].push_back(c);
  }
  for (std::uint32_t i = 0; i < n; ++i)
    if (by_node[i].empty()) throw Error("op-level placement: no backend can run " + g.label(placed[i]) + " (no candidate group contains it)");

  std::vector<double> cost_of(candidates.size(), std::numeric_limits<double>::quiet_NaN());
  auto group_cost = [&](std::uint32_t c) {
    if (std::isnan(cost_of[c])) {
      double x = static_cast<double>(cost(candidates[c]));
      if (std::isnan(x) || x < 0) throw Error("op-level placement: the cost of '" + candidates[c].pattern + "' is " + std::to_string(x) + " (must be >= 0)");
      cost_of[c] = x;
    }
    return cost_of[c];
  };

  // States: bitsets of placed nodes, interned.
  std::size_t const words = (n + 63) / 64;
  struct State {
    std::uint32_t first;  // the frontier node (n: everything placed)
    double cost;
    std::uint32_t parent, via;  // the state and candidate it was reached from
    bool settled;
  };
  std::vector<std::uint64_t> bits;  // words per state
  std::vector<State> states;
  struct KeyHash {
    std::vector<std::uint64_t> const* bits;
    std::size_t words;
    std::size_t operator()(std::uint32_t s) const {
      std::uint64_t h = 0;
      for (std::size_t w = 0; w < words; ++w) h = hash_combine(h, (*bits)[s * words + w]);
      return static_cast<std::size_t>(h);
    }
  };
  struct KeyEq {
    std::vector<std::uint64_t> const* bits;
    std::size_t words;
    bool operator()(std::uint32_t a, std::uint32_t b) const {
      return std::equal(bits->begin() + static_cast<std::ptrdiff_t>(a * words), bits->begin() + static_cast<std::ptrdiff_t>((a + 1) * words),
                        bits->begin() + static_cast<std::ptrdiff_t>(b * words));
    }
  };
  std::unordered_map<std::uint32_t, std::uint32_t, KeyHash, KeyEq> index(64, KeyHash{&bits, words}, KeyEq{&bits, words});
  auto has = [&](std::uint32_t s, std::uint32_t i) { return (bits[s * words + i / 64] >> (i % 64)) & 1u; };
  constexpr auto none = std::numeric_limits<std::uint32_t>::max();

  using Entry = std::pair<double, std::uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  bits.assign(words, 0);
  states.push_back({0, 0.0, none, none, false});
  index.emplace(0, 0);
  queue.push({0.0, 0});
  std::uint32_t goal = none;
  std::size_t settled = 0;
  std::vector<std::uint32_t> expand, stack, visited;
  std::vector<char> seen(n, 0);
  while (!queue.empty()) {
    auto [c, s] = queue.top();
    queue.pop();
    if (states[s].settled || c > states[s].cost) continue;
    states[s].settled = true;
    ++settled;
    std::uint32_t const first = states[s].first;
    if (first == n) {
      goal = s;
      break;
    }
    // The expansions: groups containing the frontier node, and for each of those that waits
    // for unplaced producers, the groups containing an unplaced ancestor of them.
    expand.clear();
    for (std::uint32_t cand : by_node[first]) {
      expand.push_back(cand);
      for (std::uint32_t i : prep[cand].producers)
        if (!has(s, i) && !seen[i]) {
          seen[i] = 1;
          stack.push_back(i);
        }
    }
    while (!stack.empty()) {
      std::uint32_t i = stack.back();
      stack.pop_back();
      visited.push_back(i);
      expand.insert(expand.end(), by_node[i].begin(), by_node[i].end());
      for (std::uint32_t p : producers[i])
        if (!has(s, p) && !seen[p]) {
          seen[p] = 1;
          stack.push_back(p);
        }
    }
    for (std::uint32_t i : visited) seen[i] = 0;
    visited.clear();
    std::ranges::sort(expand);
    expand.erase(std::unique(expand.begin(), expand.end()), expand.end());
    for (std::uint32_t cand : expand) {
      auto const& p = prep[cand];
      bool fits = std::ranges::none_of(p.nodes, [&](std::uint32_t i) { return has(s, i); }) &&
                  std::ranges::all_of(p.producers, [&](std::uint32_t i) { return has(s, i); });
      if (!fits) continue;
      double gc = group_cost(cand);
      if (!std::isfinite(gc)) continue;
      double next_cost = states[s].cost + gc + o.epsilon;
      // The new state, interned (appended tentatively, dropped if it exists).
      auto t = static_cast<std::uint32_t>(states.size());
      bits.resize((t + 1) * words);  // (then copy: inserting a range of the vector into itself may reallocate under it)
      std::copy_n(bits.begin() + static_cast<std::ptrdiff_t>(s * words), words, bits.begin() + static_cast<std::ptrdiff_t>(t * words));
      for (std::uint32_t i : p.nodes) bits[t * words + i / 64] |= std::uint64_t{1} << (i % 64);
      auto [it, fresh] = index.emplace(t, t);
      if (!fresh) {
        bits.resize(t * words);
        t = it->second;
        if (states[t].settled || next_cost >= states[t].cost) continue;
        states[t].cost = next_cost;
        states[t].parent = s;
        states[t].via = cand;
      } else {
        std::uint32_t f = first;
        while (f < n && ((bits[t * words + f / 64] >> (f % 64)) & 1u)) ++f;
        states.push_back({f, next_cost, s, cand, false});
      }
      queue.push({next_cost, t});
    }
  }
  if (goal == none) throw Error("op-level placement: no placement of finite cost covers the graph (every cover uses a group no backend can run)");

  Placement r;
  r.backends = std::move(backends);
  r.cost = states[goal].cost;
  r.states = settled;
  for (std::uint32_t s = goal; states[s].parent != none; s = states[s].parent) {
    auto const& cand = candidates[states[s].via];
    r.groups.push_back(PlacedGroup{cand.group, cand.backend, cand.pattern, cost_of[states[s].via]});
  }
  std::ranges::reverse(r.groups);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

#if defined(AUTOGRAPH_PRECOMPILED)
extern template Placement op_level_dp<BuiltinOps>(GraphFacts<BuiltinOps> const&, std::span<Candidate const>, std::vector<std::string>,
                                                  std::function<double(Candidate const&)> const&, DpOptions const&);
#endif

}  // namespace autograph::placement
