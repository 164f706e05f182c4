#pragma once
// Backtracking search over equivalent graphs (TASO Alg. 2 with AutoGraph's relaxation).
//
// From the start graph, every match of every rule is applied; a candidate is kept when its
// cost is within `relax` (β) of the best cost seen, and explored cheapest first. Candidates
// are deduplicated by structural hash *confirmed by equality* (TASO trusts the hash alone and
// can drop a graph on a collision). The search stops when the queue is empty, or the budget
// of expanded graphs or the time limit is reached, and says which.
//
// Combining (our addition, on by default): when an expansion yields several improving
// rewrites, an expander that can `combine` also offers the graph with all of them that do not
// interfere applied at once. Independent rewrites commute, so this child is reachable by
// single steps too; it only saves the budget the single steps would take (TASO's search, run
// as a baseline, does not combine).
#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <span>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/graph/structural_hash.hpp"
#include "autograph/search/rewrite_trail.hpp"

namespace autograph {

struct BacktrackingOptions {
  double relax = 1.1;              // β: keep candidates costing < relax × best
  std::size_t budget = 500;        // graphs expanded at most
  std::size_t top_k = 1;           // distinct best graphs returned
  double time_limit_s = 1e9;
  bool combine = true;             // offer the improving rewrites of an expansion combined
};

template <class Set>
struct Candidate {
  Graph<Set> graph;
  double cost = 0;
  RewriteTrail trail;
};

template <class Set>
struct SearchOutcome {
  std::vector<Candidate<Set>> best;  // cheapest first, at most top_k, best[0] is the answer
  std::size_t expanded = 0;          // graphs whose rewrites were generated
  std::size_t generated = 0;         // candidate graphs produced by rewrites
  std::size_t duplicates = 0;        // candidates dropped as already seen (hash + equality)
  std::string stop_reason;
};

/// `expand(graph, emit)` calls `emit(Graph&& rewritten, RuleId rule)` once per match of every
/// rule; `cost(graph)` is the cost policy. An expander may also provide
/// `combine(graph, picks, emit_many)`: `picks` are positions among the rewrites its last
/// expansion of `graph` emitted, best first; it calls `emit_many(Graph&&, std::span<RuleId
/// const> rules)` with those that do not interfere applied together.
/// @post best is sorted by cost, holds between 1 and max(top_k, 1) graphs, best[0] the answer.
template <class Set, class Expand, class Cost>
SearchOutcome<Set> backtracking_search(Graph<Set> const& start, Expand&& expand, Cost&& cost, BacktrackingOptions const& opt = {}) {
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  SearchOutcome<Set> out;

  std::vector<Candidate<Set>> pool;  // every kept candidate; the queue holds indices
  auto by_cost = [&](std::size_t a, std::size_t b) { return pool[a].cost > pool[b].cost; };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(by_cost)> queue(by_cost);
  std::unordered_multimap<std::uint64_t, std::size_t> seen;  // hash -> pool index

  auto is_new = [&](Graph<Set> const& g, std::uint64_t h) {
    auto [lo, hi] = seen.equal_range(h);
    for (auto it = lo; it != hi; ++it)
      if (structurally_equal(pool[it->second].graph, g)) return false;
    return true;
  };
  pool.push_back({start, cost(start), {}});
  seen.emplace(structural_hash(start), 0);
  queue.push(0);
  double best_cost = pool[0].cost;

  out.stop_reason = "no candidate left within the relaxation";
  while (!queue.empty()) {
    if (out.expanded >= opt.budget) {
      out.stop_reason = "budget of " + std::to_string(opt.budget) + " expanded graphs reached";
      break;
    }
    if (elapsed() > opt.time_limit_s) {
      out.stop_reason = "time limit of " + std::to_string(opt.time_limit_s) + " s reached";
      break;
    }
    std::size_t cur = queue.top();
    queue.pop();
    ++out.expanded;
    // Copies (cheap: copy-on-write) because emitting grows `pool` and may move its elements.
    Graph<Set> const current = pool[cur].graph;
    RewriteTrail const current_trail = pool[cur].trail;
    double const current_cost = pool[cur].cost;
    // Returns the candidate's cost, or NaN when it was a duplicate.
    auto consider = [&](Graph<Set>&& next, RewriteTrail trail) {
      ++out.generated;
      std::uint64_t h = structural_hash(next);  // cheaper than the cost: dedupe first
      if (!is_new(next, h)) {
        ++out.duplicates;
        return std::numeric_limits<double>::quiet_NaN();
      }
      double c = cost(next);
      if (!(c < opt.relax * best_cost)) return c;
      pool.push_back({std::move(next), c, std::move(trail)});
      seen.emplace(h, pool.size() - 1);
      queue.push(pool.size() - 1);
      best_cost = std::min(best_cost, c);
      return c;
    };
    std::vector<std::pair<double, std::size_t>> improving;  // (cost, position among the emitted)
    std::size_t position = 0;
    expand(current, [&](Graph<Set>&& next, RuleId rule) {
      double c = consider(std::move(next), current_trail.then(rule));
      if (c < current_cost) improving.emplace_back(c, position);
      ++position;
    });
    if constexpr (requires { expand.combine(current, std::span<std::size_t const>{}, [](Graph<Set>&&, std::span<RuleId const>) {}); }) {
      if (opt.combine && improving.size() >= 2) {
        std::ranges::sort(improving);
        std::vector<std::size_t> picks;
        for (auto const& [c, p] : improving) picks.push_back(p);
        expand.combine(current, std::span<std::size_t const>(picks), [&](Graph<Set>&& next, std::span<RuleId const> rules) {
          RewriteTrail trail = current_trail;
          for (RuleId r : rules) trail = trail.then(r);
          consider(std::move(next), std::move(trail));
        });
      }
    }
  }

  std::vector<std::size_t> order(pool.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::size_t k = std::min(opt.top_k == 0 ? std::size_t{1} : opt.top_k, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](std::size_t a, std::size_t b) { return pool[a].cost < pool[b].cost || (pool[a].cost == pool[b].cost && a < b); });
  for (std::size_t i = 0; i < k; ++i) out.best.push_back(std::move(pool[order[i]]));
  return out;
}

}  // namespace autograph
