#pragma once
// fuse_by_dp(): AutoGTCO's DPOF end to end. Each round finds the candidate groups of the
// current graph (fusion_groups()), costs each fused and unfused (a GroupCostFn), lets the DP
// choose the disjoint subset that lowers the total most (dpof()), and applies those rewrites
// (apply_groups()). A fusion can enable another that did not match before: gelu(matmul(x, w)
// + b) is first matmul+bias, then that fused MatMul+GELU. Such chains are candidates of their
// own (FuseOptions::chains), so that a first step slower alone is not refused when the chain
// is faster; and rounds repeat, for what no chain of two reaches. They stop when the DP
// chooses nothing (every remaining group is slower fused, or none is left).
//
// Compare rules::apply_greedily() with the same engine: it fuses every group it can, whatever
// the fused kernel costs.
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/fusion/dpof.hpp"
#include "autograph/fusion/fusion_group.hpp"
#include "autograph/fusion/group_cost.hpp"

namespace autograph::fusion {

struct FuseOptions {
  std::size_t max_rounds = 8;  // each round applies at least one group
  bool chains = true;          // also a group followed by the match only it enables, as one candidate (fusion_groups())
};

struct FuseRound {
  std::size_t candidates = 0;         // groups found
  std::vector<FusionGroup> chosen;    // those fused, in queue order
  std::vector<GroupCost> chosen_cost;
  std::size_t rejected = 0;           // groups the DP did not choose (slower fused, or overlapping a chosen one)
  double delta = 0;                   // the chosen groups' sum of fused - unfused
  std::size_t states = 0;             // DP states
};

template <class Set>
struct FuseResult {
  Graph<Set> graph;
  std::vector<FuseRound> rounds;
  std::vector<std::size_t> applications;  // per rule of the engine
  double dp_seconds = 0, cost_seconds = 0;

  std::size_t total_applications() const {
    std::size_t n = 0;
    for (std::size_t a : applications) n += a;
    return n;
  }
};

/// Applies `groups` (disjoint groups of `g`) one after another through their rules' rewriters.
template <class Set, class Engine>
Graph<Set> apply_groups(Graph<Set> g, Engine const& engine, std::span<FusionGroup const> groups) {
  for (auto const& grp : groups) g = apply_group(std::move(g), engine, grp);
  return g;
}

/// DPOF's fused graph of `g` under `cost`.
template <class Set, class Engine, GroupCostFn<Set> Cost>
FuseResult<Set> fuse_by_dp(Graph<Set> g, Engine const& engine, Cost&& cost, FuseOptions const& o = {}) {
  using Clock = std::chrono::steady_clock;
  FuseResult<Set> out{std::move(g), {}, std::vector<std::size_t>(engine.size(), 0)};
  for (std::size_t round = 0; round < o.max_rounds; ++round) {
    auto groups = fusion_groups(out.graph, engine, o.chains);
    if (groups.empty()) break;
    auto t0 = Clock::now();
    std::vector<GroupCost> costs;
    std::vector<double> delta;
    for (auto const& grp : groups) {
      costs.push_back(cost(out.graph, grp));
      delta.push_back(costs.back().delta());
    }
    auto t1 = Clock::now();
    auto const pos = queue_positions(out.graph);
    std::vector<std::vector<std::uint32_t>> queued;
    for (auto const& grp : groups) {
      auto& q = queued.emplace_back();
      for (NodeId n : grp.nodes) q.push_back(pos[n]);
    }
    auto choice = dpof(pos.size(), std::span<std::vector<std::uint32_t> const>(queued), std::span<double const>(delta));
    out.cost_seconds += std::chrono::duration<double>(t1 - t0).count();
    out.dp_seconds += std::chrono::duration<double>(Clock::now() - t1).count();
    if (choice.chosen.empty()) break;
    FuseRound r{groups.size(), {}, {}, groups.size() - choice.chosen.size(), choice.delta, choice.states};
    for (std::size_t k : choice.chosen) {
      r.chosen.push_back(groups[k]);
      r.chosen_cost.push_back(costs[k]);
      for (auto const& step : groups[k].steps) ++out.applications[step.rule];
    }
    out.graph = apply_groups(std::move(out.graph), engine, std::span<FusionGroup const>(r.chosen));
    out.rounds.push_back(std::move(r));
  }
  return out;
}

}  // namespace autograph::fusion
