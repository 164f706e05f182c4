#pragma once
// The graph-level placement optimizer (Collage §4.3): an evolutionary search over placements
// measured end to end, starting from the op-level DP's placement (op_level_dp.hpp). The DP sums
// costs measured per group in isolation (Eq. 2), so it cannot see what one kernel does to the
// next: layout conversions between backends, a library's scheduling across its own kernels,
// streams sharing the cores. Here every individual is run as a whole.
//
// State (§4.3): one digit per group of the start placement that does not run on the target
// backend (the library with the cross-kernel optimisations; on the CPU runtime oneDNN, whose
// kernels agree on channels-last layouts). 0 keeps the op-level decision, 1 offloads the
// group's ops to the target: to the target's candidate with exactly those ops when there is one
// (a fused group stays one kernel), else to the target's one-op candidates. A group some of
// whose ops the target cannot run has no digit. Every individual is therefore a cover of the
// graph by candidate groups in an order where producers come first (a convex group split into
// its ops stays acyclic with its neighbours).
//
// Search (§4.3, Fig. 6, after Fortin et al. 2012's DEAP): seeds are the op-level placement
// (all zeros), everything offloaded (all ones), each incumbent and each of `options.seeds` (the
// single-backend placements) as the genome nearest to it — a digit is 1 when the incumbent runs every op of
// the digit's group on the target — and mutants of the start; each generation selects the
// fastest measured individuals as parents, recombines them by two-point crossover and mutates
// the children (each digit flipped with probability 1/digits, at least one), until the time
// budget is spent, every genome is measured, or 50 generations in a row find no genome not yet
// measured (saturation). Measurements are memoised by genome.
//
// The choice (measured_choice.hpp, the optimizer's rule): the incumbents in order, then the
// op-level placement, then the search's winner (its fastest median) each challenge whoever
// holds the place, and a challenger takes it only when `compare` (interleaved runs, the
// runtime's noise margin) calls it faster beyond noise. With the single-backend placements as
// the incumbents, the result is the best single backend unless a placement measured faster
// than it beyond noise (issue 17: never slower than the best single backend). An incumbent is
// measured whole in the choice, never as a genome: a single backend's own fused groups are not
// a cover the digits can express.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/graph/graph_facts.hpp"
#include "autograph/placement/measured_choice.hpp"
#include "autograph/placement/placement.hpp"

namespace autograph::placement {

struct GraphSearchOptions {
  std::uint32_t target = 0;       // the backend groups are offloaded to (index into the placement's backends)
  double budget_seconds = 60;     // wall time for measuring individuals (the choice's comparisons come after)
  std::size_t population = 8;     // individuals kept per generation (parents of the next)
  std::size_t children = 8;       // new individuals tried per generation
  std::uint64_t seed = 1;
  // More placements whose nearest genomes seed the search (the incumbents' always do): the
  // single backends that did not win the place, when the caller already knows the best.
  std::vector<Placement> seeds = {};
};

struct GraphSearchResult {
  Placement placement;         // what to run (cost: its measured median, in the measurer's unit)
  std::string kept;            // "graph-level search", "op-level placement", or the incumbent's label
  std::vector<char> genome;    // the kept placement's digits (empty when an incumbent was kept)
  std::size_t digits = 0;      // groups of the start placement that can be offloaded
  std::size_t measured = 0;    // distinct individuals measured
  std::size_t generations = 0;
  double best_measured = 0;    // the search winner's median
  double seconds = 0;          // search and choice, measuring included
  std::vector<Decision> decisions;  // the choice's comparisons, in order
};

struct Incumbent {
  std::string label;
  Placement placement;
};

/// The graph-level placement of `facts.graph()` (see the file comment). `candidates`: the
/// generator's groups (with `cost_of` by candidate, copied into the placed groups; may be
/// empty); `start`: the op-level placement over them; `incumbents`: the placements the result
/// must beat beyond noise, best first when known (the single backends); `measure(p)`: p's
/// end-to-end time (a median); `compare(incumbent, challenger)`: the two measured interleaved,
/// `faster` when the challenger is faster beyond noise.
/// @throws Error when `start` uses a backend index outside its backends or the target is not one.
template <class Set>
GraphSearchResult graph_level_search(GraphFacts<Set> const& facts, std::span<Candidate const> candidates, std::span<double const> cost_of,
                                     Placement const& start, std::span<Incumbent const> incumbents,
                                     std::function<double(Placement const&)> const& measure,
                                     std::function<Comparison(Placement const&, Placement const&)> const& compare, GraphSearchOptions const& o = {}) {
  using Clock = std::chrono::steady_clock;
  auto const t0 = Clock::now();
  if (o.target >= start.backends.size())
    throw Error("graph-level search: target backend " + std::to_string(o.target) + " is not one of the placement's " +
                std::to_string(start.backends.size()) + " backends");
  if (o.population == 0 || o.children == 0) throw Error("graph-level search: population and children must be at least 1");
  auto cost = [&](std::size_t c) { return c < cost_of.size() ? cost_of[c] : 0.0; };

  // The target's candidates by node set, and its one-op candidates by node.
  std::map<std::vector<NodeId>, std::size_t> target_group;
  std::map<NodeId, std::size_t> target_single;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    if (candidates[c].backend != o.target) continue;
    target_group.emplace(candidates[c].group.nodes, c);
    if (candidates[c].group.size() == 1) target_single.emplace(candidates[c].group.nodes[0], c);
  }
  // Per digit: the start group it replaces and the target candidates that replace it (producers first).
  struct Digit {
    std::size_t group;
    std::vector<std::size_t> with;
  };
  std::vector<Digit> digits;
  for (std::size_t i = 0; i < start.groups.size(); ++i) {
    auto const& pg = start.groups[i];
    if (pg.backend >= start.backends.size()) throw Error("graph-level search: the start placement's group '" + pg.pattern + "' has no backend");
    if (pg.backend == o.target) continue;
    Digit d{i, {}};
    if (auto it = target_group.find(pg.group.nodes); it != target_group.end()) {
      d.with.push_back(it->second);
    } else {
      std::vector<NodeId> ops = pg.group.nodes;
      std::ranges::sort(ops, {}, [&](NodeId n) { return facts.position(n); });
      for (NodeId n : ops) {
        auto it1 = target_single.find(n);
        if (it1 == target_single.end()) break;
        d.with.push_back(it1->second);
      }
      if (d.with.size() != ops.size()) continue;  // the target cannot run every op of the group
    }
    digits.push_back(std::move(d));
  }

  std::vector<std::size_t> digit_of(start.groups.size(), SIZE_MAX);
  for (std::size_t k = 0; k < digits.size(); ++k) digit_of[digits[k].group] = k;
  auto decode = [&](std::vector<char> const& genome) {
    Placement p;
    p.backends = start.backends;
    for (std::size_t i = 0; i < start.groups.size(); ++i) {
      std::size_t k = digit_of[i];
      if (k == SIZE_MAX || !genome[k]) {
        p.groups.push_back(start.groups[i]);
        continue;
      }
      for (std::size_t c : digits[k].with) p.groups.push_back(PlacedGroup{candidates[c].group, o.target, candidates[c].pattern, cost(c)});
    }
    return p;
  };

  GraphSearchResult r;
  r.digits = digits.size();
  std::map<std::vector<char>, double> memo;  // genome -> measured median
  auto budget_left = [&] { return std::chrono::duration<double>(Clock::now() - t0).count() < o.budget_seconds; };
  auto evaluate = [&](std::vector<char> const& genome) {
    if (auto it = memo.find(genome); it != memo.end()) return it->second;
    double t = measure(decode(genome));
    memo.emplace(genome, t);
    return t;
  };

  std::mt19937_64 rng(o.seed);
  std::size_t const n = digits.size();
  auto mutate = [&](std::vector<char> genome) {
    if (n == 0) return genome;
    std::bernoulli_distribution flip(1.0 / static_cast<double>(n));
    bool any = false;
    for (auto& d : genome)
      if (flip(rng)) d = !d, any = true;
    if (!any) {
      std::size_t k = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
      genome[k] = !genome[k];
    }
    return genome;
  };
  auto crossover = [&](std::vector<char> const& a, std::vector<char> const& b) {  // two-point
    std::vector<char> c = a;
    if (n < 2) return c;
    std::size_t i = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng), j = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
    if (i > j) std::swap(i, j);
    for (std::size_t k = i; k <= j; ++k) c[k] = b[k];
    return c;
  };

  // The genome nearest to a placement: a digit is 1 where it runs every op of the digit's group on the target.
  auto nearest = [&](Placement const& p) {
    std::vector<char> on_target(facts.graph().id_bound(), 0);
    for (auto const& pg : p.groups)
      if (p.backends.at(pg.backend) == start.backends[o.target])
        for (NodeId m : pg.group.nodes) on_target[m] = 1;
    std::vector<char> genome(n, 0);
    for (std::size_t k = 0; k < n; ++k)
      genome[k] = std::ranges::all_of(start.groups[digits[k].group].group.nodes, [&](NodeId m) { return on_target[m] != 0; });
    return genome;
  };

  std::vector<char> const zeros(n, 0);
  evaluate(zeros);
  if (n > 0) {
    std::vector<std::vector<char>> seeds{std::vector<char>(n, 1)};
    for (auto const& inc : incumbents) seeds.push_back(nearest(inc.placement));
    for (auto const& p : o.seeds) seeds.push_back(nearest(p));
    while (seeds.size() < o.population) seeds.push_back(mutate(zeros));  // (the incumbents' may be more than the population: all are seeds)
    for (auto const& s : seeds) {
      if (!budget_left()) break;
      evaluate(s);
    }
    // Generations: parents are the fastest measured genomes; children by crossover of two
    // parents then mutation, or mutation alone when there is one parent.
    std::size_t stale = 0;  // generations in a row that found nothing new
    std::size_t const space = n < 20 ? std::size_t{1} << n : std::numeric_limits<std::size_t>::max();
    while (budget_left() && memo.size() < space && stale < 50) {
      std::vector<std::pair<double, std::vector<char> const*>> ranked;
      for (auto const& [g, t] : memo) ranked.emplace_back(t, &g);
      std::ranges::sort(ranked, {}, [](auto const& e) { return e.first; });
      ranked.resize(std::min(ranked.size(), o.population));
      std::size_t fresh = 0;
      for (std::size_t c = 0; c < o.children && budget_left(); ++c) {
        std::uniform_int_distribution<std::size_t> pick(0, ranked.size() - 1);
        std::vector<char> child = mutate(crossover(*ranked[pick(rng)].second, *ranked[pick(rng)].second));
        if (memo.contains(child)) continue;
        evaluate(child);
        ++fresh;
      }
      ++r.generations;
      stale = fresh == 0 ? stale + 1 : 0;
    }
  }
  r.measured = memo.size();
  auto best = std::ranges::min_element(memo, {}, [](auto const& e) { return e.second; });
  r.best_measured = best->second;
  Placement winner = decode(best->first);
  winner.cost = r.best_measured;

  // The choice: incumbents, the op-level placement, the winner, each a challenger of the holder.
  std::vector<std::pair<std::string, Placement const*>> contenders;
  for (auto const& inc : incumbents) contenders.emplace_back(inc.label, &inc.placement);
  contenders.emplace_back("op-level placement", &start);
  if (best->first != zeros) contenders.emplace_back("graph-level search", &winner);
  auto choice = choose_measured<Placement>(contenders, compare, same_placement);
  r.decisions = std::move(choice.decisions);
  r.kept = contenders[choice.kept].first;
  r.placement = *contenders[choice.kept].second;
  if (choice.kept >= incumbents.size()) r.genome = contenders[choice.kept].second == &start ? zeros : best->first;
  // Its cost: its median in the last comparison it took part in (the interleaved one), else the search's.
  r.placement.cost = r.genome.empty() ? 0.0 : memo.at(r.genome);
  for (auto const& d : r.decisions) {
    if (d.same) continue;
    if (d.incumbent == r.kept) r.placement.cost = d.comparison.incumbent_ms;
    if (d.challenger == r.kept) r.placement.cost = d.comparison.challenger_ms;
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

}  // namespace autograph::placement
