#pragma once
// The op-level placement optimizer (Collage §4.2, Algorithm 1, Eq. 3–4): the cheapest cover of
// a graph by candidate groups, where a placement costs the sum of its groups' measured costs
// plus a constant epsilon per group (Eq. 2), plus, with a LayoutModel, the layout conversions
// the runtime does on the edges between groups (placement/layout_model.hpp).
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
// cover that can be placed now contains an ancestor of those producers, and (walking back
// inside that group) an ancestor whose producers are all placed. So the DP expands only the
// groups containing f and the groups containing a ready unplaced ancestor of a waiting group
// of f, and still reaches every cover (by induction over the cover's groups). (Expanding the
// groups of every unplaced ancestor, as the first version did, reached the same states with
// lists as long as the graph: RNNTC-SRU's recurrences made each state sort thousands.)
//
// Layouts: a value between groups lies in the fast layout only when its producer gives it so
// and every reader takes it so (the CPU runtime's rule, cpu/lower.hpp). The DP decides it at the
// producer: placing a group that gives a value fast branches into "kept fast" (a bit of the
// state, cleared once every reader is placed; a reader that does not take it fast cannot be
// placed on that branch) and "plain" (the producer's conversion charged); a reader taking a
// plain value fast is charged its conversion. A branch no reader can need is not made (no
// candidate refuses the value: plain is dominated; some reader has no candidate taking it:
// fast is impossible). The cheapest cover then pays exactly the conversions the runtime does.
//
// Bound: the sets of placed nodes of a graph with many parallel branches (RandWire-WS) are
// exponentially many. DpOptions::beam settles at most that many states per number of placed
// nodes, the cheapest first (Dijkstra pops in cost order): a beam search over Eq. 3's states.
// Placement::states_cut says how many states it dropped; 0 means the result is Eq. 3's optimum.
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
#include "autograph/placement/layout_model.hpp"
#include "autograph/placement/placement.hpp"

namespace autograph::placement {

struct DpOptions {
  double epsilon = 0;  // Eq. 2's context-switching cost per group, in the cost's unit
  /// Most states settled per number of placed nodes; 0: no bound (Eq. 3 exactly, whatever it
  /// takes). 256 cuts nothing on any zoo model but RandWire-WS under the synthetic costs of
  /// test/placement/op_level_dp_beam_test.cpp. RandWire-WS (64 px, measured costs, loaded 2-core
  /// VM): beam 256 0.44 s, cover 1.123 ms; 2048 4.5 s, 1.123 ms; 8192 19.8 s, 1.122 ms; its exact
  /// DP ran for minutes (issue 17's place-zoo run stopped at 120 s).
  std::size_t beam = 256;
  LayoutModel layout = {};  // empty: no layout conversions charged
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

  // Layouts (see the file comment). An open value: written by a placed node, not a graph
  // output, with a conversion cost; it may stay fast, a state bit. Any other value a group
  // takes or gives fast lies plain, and the group pays its conversion whatever the state.
  struct Open {
    std::uint32_t producer;               // dense
    std::vector<std::uint32_t> readers;   // dense, placed readers
    double conversion;
    bool can_fast = true;     // every reader has a candidate (without the producer) taking it fast
    bool some_refuse = false; // some candidate with a reader (without the producer) does not take it fast
  };
  std::vector<Open> open;
  std::unordered_map<std::uint64_t, std::uint32_t> open_index;  // (node << 32 | port) -> index into open
  auto key_of = [](Value v) { return (static_cast<std::uint64_t>(v.node) << 32) | v.port; };
  struct LayoutOfCandidate {
    double fixed = 0;             // conversions of values that lie plain whatever the state
    std::size_t fixed_count = 0;
    std::vector<std::pair<std::uint32_t, bool>> ins;   // open values read: (index, takes fast)
    std::vector<std::pair<std::uint32_t, bool>> outs;  // open values written: (index, gives fast)
  };
  std::vector<LayoutOfCandidate> lay;
  bool const layouts = o.layout.enabled();
  if (layouts) {
    lay.resize(candidates.size());
    std::unordered_map<std::uint64_t, double> conversion;
    auto conversion_of = [&](Value v) {
      auto [it, fresh] = conversion.try_emplace(key_of(v), 0.0);
      if (fresh) {
        double x = o.layout.conversion(v);
        if (!std::isfinite(x) || x < 0) throw Error("op-level placement: the conversion cost of " + g.label(v.node) + " is " + std::to_string(x) + " (must be finite, >= 0)");
        it->second = x;
      }
      return it->second;
    };
    for (std::uint32_t i = 0; i < n; ++i) {
      NodeId id = placed[i];
      for (std::uint32_t port = 0; port < g[id].outputs.size(); ++port) {
        Value v{id, port};
        if (g.is_output(v) || conversion_of(v) == 0) continue;
        Open ov{i, {}, conversion_of(v)};
        for (Use u : g.users(id))
          if (g[u.node].inputs[u.input] == v && facts.placed(u.node) && std::ranges::find(ov.readers, dense[u.node]) == ov.readers.end())
            ov.readers.push_back(dense[u.node]);
        if (ov.readers.empty()) continue;
        open_index.emplace(key_of(v), static_cast<std::uint32_t>(open.size()));
        open.push_back(std::move(ov));
      }
    }
    std::vector<std::vector<char>> reader_fast(open.size());  // per open value and reader: some candidate takes it fast
    for (std::size_t k = 0; k < open.size(); ++k) reader_fast[k].assign(open[k].readers.size(), 0);
    for (std::uint32_t c = 0; c < candidates.size(); ++c) {
      GroupLayout gl = o.layout.layout(candidates[c]);
      auto const& grp = candidates[c].group;
      auto takes = [&](Value v) { return std::ranges::find(gl.takes_fast, v) != gl.takes_fast.end(); };
      auto gives = [&](Value v) { return std::ranges::find(gl.gives_fast, v) != gl.gives_fast.end(); };
      std::vector<Value> read;  // the values it reads from outside, once each
      for (NodeId v : grp.nodes)
        for (Value in : g[v].inputs)
          if (!grp.contains(in.node) && std::ranges::find(read, in) == read.end()) read.push_back(in);
      for (Value in : read) {
        auto it = open_index.find(key_of(in));
        if (it == open_index.end()) {
          if (takes(in) && conversion_of(in) > 0) lay[c].fixed += conversion_of(in), ++lay[c].fixed_count;
          continue;
        }
        bool t = takes(in);
        lay[c].ins.emplace_back(it->second, t);
        auto& ov = open[it->second];
        if (!t) ov.some_refuse = true;
        for (std::size_t r = 0; r < ov.readers.size(); ++r)
          if (t && grp.contains(placed[ov.readers[r]])) reader_fast[it->second][r] = 1;
      }
      for (NodeId v : grp.nodes)
        for (std::uint32_t port = 0; port < g[v].outputs.size(); ++port) {
          Value out{v, port};
          if (!gives(out)) continue;
          auto it = open_index.find(key_of(out));
          if (it == open_index.end()) {  // a graph output (or a value no other group reads): written plain
            if (conversion_of(out) > 0 && g.is_output(out)) lay[c].fixed += conversion_of(out), ++lay[c].fixed_count;
            continue;
          }
          lay[c].outs.emplace_back(it->second, true);
        }
    }
    for (std::size_t k = 0; k < open.size(); ++k) open[k].can_fast = std::ranges::all_of(reader_fast[k], [](char x) { return x != 0; });
  }

  // States: bitsets of placed nodes, then of the open values kept fast, interned.
  std::size_t const node_words = (n + 63) / 64, words = node_words + (open.size() + 63) / 64;
  struct State {
    std::uint32_t first;  // the frontier node (n: everything placed)
    std::uint32_t level;  // nodes placed
    double cost;
    std::uint32_t parent, via;  // the state and candidate it was reached from
    std::uint32_t conversions;  // charged on the way from the empty state
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
  auto fast = [&](std::uint32_t s, std::uint32_t k) { return (bits[s * words + node_words + k / 64] >> (k % 64)) & 1u; };
  constexpr auto none = std::numeric_limits<std::uint32_t>::max();

  using Entry = std::pair<double, std::uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  bits.assign(words, 0);
  states.push_back({0, 0, 0.0, none, none, 0, false});
  index.emplace(0, 0);
  queue.push({0.0, 0});
  std::uint32_t goal = none;
  std::size_t settled = 0, cut = 0;
  std::vector<std::size_t> settled_at(n + 1, 0);
  std::vector<std::uint32_t> expand, stack, visited, branching;
  std::vector<char> seen(n, 0);
  while (!queue.empty()) {
    auto [c, s] = queue.top();
    queue.pop();
    if (states[s].settled || c > states[s].cost) continue;
    states[s].settled = true;
    if (o.beam > 0 && settled_at[states[s].level] >= o.beam) {
      ++cut;
      continue;
    }
    ++settled_at[states[s].level];
    ++settled;
    std::uint32_t const first = states[s].first;
    if (first == n) {
      goal = s;
      break;
    }
    // The expansions: groups containing the frontier node, and for each of those that waits
    // for unplaced producers, the groups containing a ready unplaced ancestor of them.
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
      bool ready = true;
      for (std::uint32_t p : producers[i])
        if (!has(s, p)) {
          ready = false;
          if (!seen[p]) {
            seen[p] = 1;
            stack.push_back(p);
          }
        }
      if (ready) expand.insert(expand.end(), by_node[i].begin(), by_node[i].end());
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
      double step = 0;
      std::uint32_t conversions = 0;
      branching.clear();
      if (layouts) {
        auto const& l = lay[cand];
        bool allowed = true;
        step += l.fixed;
        conversions += static_cast<std::uint32_t>(l.fixed_count);
        for (auto [k, takes] : l.ins) {
          if (fast(s, k) && !takes) allowed = false;
          if (!fast(s, k) && takes) step += open[k].conversion, ++conversions;
        }
        if (!allowed) continue;
        for (auto [k, gives] : l.outs) {
          if (!gives) continue;
          if (!open[k].can_fast) {
            step += open[k].conversion, ++conversions;  // some reader never takes it fast: written plain
          } else {
            branching.push_back(k);  // kept fast, and (when some reader may refuse it) written plain
          }
        }
      }
      double gc = group_cost(cand);
      if (!std::isfinite(gc)) continue;
      // The branches: mask bit j set = branching[j] written plain (only where a reader may refuse it).
      std::uint32_t const choices = static_cast<std::uint32_t>(branching.size());
      std::uint32_t may_plain = 0;
      for (std::uint32_t j = 0; j < choices; ++j)
        if (open[branching[j]].some_refuse) may_plain |= 1u << j;
      if (choices > 16) throw Error("op-level placement: candidate '" + candidates[cand].pattern + "' writes " + std::to_string(choices) + " values that may stay in the fast layout (at most 16)");
      for (std::uint32_t mask = 0; mask < (1u << choices); ++mask) {
        if ((mask & ~may_plain) != 0) continue;
        double next_cost = states[s].cost + gc + o.epsilon + step;
        std::uint32_t next_conversions = states[s].conversions + conversions;
        // The new state, interned (appended tentatively, dropped if it exists).
        auto t = static_cast<std::uint32_t>(states.size());
        bits.resize((t + 1) * words);  // (then copy: inserting a range of the vector into itself may reallocate under it)
        std::copy_n(bits.begin() + static_cast<std::ptrdiff_t>(s * words), words, bits.begin() + static_cast<std::ptrdiff_t>(t * words));
        for (std::uint32_t i : p.nodes) bits[t * words + i / 64] |= std::uint64_t{1} << (i % 64);
        if (layouts) {
          for (std::uint32_t j = 0; j < choices; ++j) {
            std::uint32_t k = branching[j];
            if (mask & (1u << j)) {
              next_cost += open[k].conversion, ++next_conversions;
            } else {
              bits[t * words + node_words + k / 64] |= std::uint64_t{1} << (k % 64);
            }
          }
          for (auto [k, takes] : lay[cand].ins)  // a fast value every reader has taken: no longer part of the state
            if (fast(t, k) && std::ranges::all_of(open[k].readers, [&](std::uint32_t r) { return has(t, r) != 0; }))
              bits[t * words + node_words + k / 64] &= ~(std::uint64_t{1} << (k % 64));
        }
        auto [it, fresh] = index.emplace(t, t);
        if (!fresh) {
          bits.resize(t * words);
          t = it->second;
          if (states[t].settled || next_cost >= states[t].cost) continue;
          states[t].cost = next_cost;
          states[t].parent = s;
          states[t].via = cand;
          states[t].conversions = next_conversions;
        } else {
          std::uint32_t f = first;
          while (f < n && ((bits[t * words + f / 64] >> (f % 64)) & 1u)) ++f;
          states.push_back({f, states[s].level + static_cast<std::uint32_t>(p.nodes.size()), next_cost, s, cand, next_conversions, false});
        }
        queue.push({next_cost, t});
      }
    }
  }
  if (goal == none)
    throw Error(cut > 0 ? "op-level placement: no cover found within the beam of " + std::to_string(o.beam) + " states per level (" +
                              std::to_string(cut) + " states cut); raise DpOptions::beam"
                        : "op-level placement: no placement of finite cost covers the graph (every cover uses a group no backend can run)");

  Placement r;
  r.backends = std::move(backends);
  r.cost = states[goal].cost;
  r.states = settled;
  r.states_cut = cut;
  r.beam = o.beam;
  r.conversions = states[goal].conversions;
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
