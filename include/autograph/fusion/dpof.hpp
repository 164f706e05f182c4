#pragma once
// DPOF, AutoGTCO's dynamic-programming operator fusion (Yao et al., §IV-B, Eq. 3 and
// Algorithm 1), over a graph's topological queue of operators and a list of candidate fusion
// groups (sets of queue positions), each with the change in latency its fusion brings
// (`delta` = fused cost - unfused cost; negative when fusing is faster).
//
// The paper's state is the set V of operators still to schedule; a phase takes a segmentation
// set V' off it and dp[V] = min over V' of dp[V - V'] + temp[V'] (Eq. 3), dp[∅] = 0. Here a
// phase takes the queue's first remaining operator q either alone (unfused: delta 0) or with
// a candidate group whose first operator is q and that avoids every operator already taken.
// So the remaining set at queue position i is {positions >= i} minus the operators of groups
// taken earlier that lie at or after i: a state is (i, that covered set), and every set of
// pairwise disjoint groups is exactly one path through the states (its groups taken at their
// first operators). The DP is thus exact: it returns the disjoint subset of groups with the
// least total delta. The covered sets stay small because fusion groups are local (an
// attention group spans a handful of queue positions), so the states per position are few.
//
// Ties go to not fusing: a group is taken only when it strictly lowers the total.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "autograph/core/error.hpp"

namespace autograph::fusion {

struct DpofChoice {
  std::vector<std::size_t> chosen;  // indices of the groups to fuse, in queue order of their first operator
  double delta = 0;                 // the sum of their deltas (the least over all disjoint subsets)
  std::size_t states = 0;           // DP states created
};

/// The disjoint subset of `groups` (each a set of positions in a queue of `queue_size`) with
/// the least sum of `delta`. A delta of +infinity marks a group that cannot be fused.
/// @pre groups.size() == delta.size()
/// @throws Error naming the group for an empty group, a position outside the queue, or a NaN delta.
inline DpofChoice dpof(std::size_t queue_size, std::span<std::vector<std::uint32_t> const> groups, std::span<double const> delta) {
  if (groups.size() != delta.size())
    throw Error("dpof: " + std::to_string(groups.size()) + " groups but " + std::to_string(delta.size()) + " deltas");
  constexpr auto none = std::numeric_limits<std::size_t>::max();
  // Groups by their first operator, each as its sorted positions.
  std::vector<std::vector<std::size_t>> starting(queue_size);
  std::vector<std::vector<std::uint32_t>> sorted(groups.size());
  for (std::size_t k = 0; k < groups.size(); ++k) {
    if (groups[k].empty()) throw Error("dpof: group " + std::to_string(k) + " is empty");
    if (std::isnan(delta[k])) throw Error("dpof: the delta of group " + std::to_string(k) + " is NaN");
    sorted[k] = groups[k];
    std::ranges::sort(sorted[k]);
    if (std::ranges::adjacent_find(sorted[k]) != sorted[k].end())
      throw Error("dpof: group " + std::to_string(k) + " lists queue position " + std::to_string(*std::ranges::adjacent_find(sorted[k])) + " twice");
    if (sorted[k].back() >= queue_size)
      throw Error("dpof: group " + std::to_string(k) + " has queue position " + std::to_string(sorted[k].back()) + " (queue of " +
                  std::to_string(queue_size) + ")");
    if (delta[k] < std::numeric_limits<double>::infinity()) starting[sorted[k].front()].push_back(k);
  }

  struct State {
    double cost;
    std::size_t parent, via;  // the state one position earlier and the group taken there (none: q unfused or covered)
  };
  std::vector<State> states{{0.0, none, none}};
  // The states of the current position, by covered set (positions >= i taken by earlier groups).
  std::map<std::vector<std::uint32_t>, std::size_t> level{{{}, 0}}, next;
  auto relax = [&](std::vector<std::uint32_t> covered, double cost, std::size_t parent, std::size_t via) {
    auto [it, fresh] = next.emplace(std::move(covered), states.size());
    if (fresh) {
      states.push_back({cost, parent, via});
    } else if (cost < states[it->second].cost) {
      states[it->second] = {cost, parent, via};
    }
  };
  std::vector<std::uint32_t> merged;
  for (std::uint32_t i = 0; i < queue_size; ++i) {
    next.clear();
    for (auto const& [covered, s] : level) {
      double const c = states[s].cost;
      if (!covered.empty() && covered.front() == i) {  // q already fused into an earlier group
        relax(std::vector<std::uint32_t>(covered.begin() + 1, covered.end()), c, s, none);
        continue;
      }
      relax(covered, c, s, none);  // q alone, unfused
      for (std::size_t k : starting[i]) {
        auto const& grp = sorted[k];
        merged.clear();
        std::ranges::set_union(covered, std::span(grp).subspan(1), std::back_inserter(merged));
        if (merged.size() != covered.size() + grp.size() - 1) continue;  // overlaps a group taken earlier
        relax(merged, c + delta[k], s, k);
      }
    }
    std::swap(level, next);
  }
  // Every path ends with nothing covered past the queue.
  DpofChoice r;
  r.states = states.size();
  std::size_t s = level.at({});
  r.delta = states[s].cost;
  for (; states[s].parent != none; s = states[s].parent)
    if (states[s].via != none) r.chosen.push_back(states[s].via);
  std::ranges::reverse(r.chosen);
  return r;
}

}  // namespace autograph::fusion
