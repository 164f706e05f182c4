#pragma once
// The candidate fusion groups of a graph: every match of every rule of a fusion engine
// (rules::TransformerFusionEngine for AutoGTCO's transformer fusions), each the set of nodes
// its rewrite replaces, plus the match that rewrites them. Groups may overlap (in
// layer_norm(matmul(x, w) + bias) the Add is both the bias of fuse-matmul-bias and the sum of
// fuse-add-layer-norm): DPOF chooses a disjoint subset (fusion/dpof.hpp).
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"
#include "autograph/rules/engine.hpp"

namespace autograph::fusion {

/// One rewrite of a group: its rule and the nodes of the original graph it replaces (sorted;
/// a chained step also replaces what the previous step built, which is not listed).
struct FusionStep {
  std::uint32_t rule = 0;      // engine numbering
  std::vector<NodeId> nodes;
};

struct FusionGroup {
  rules::FoundMatch match;        // the first step's match, in the graph the group was found in
  std::string rule;               // the rule's name ("fuse-attention"; a chain: "fuse-matmul-bias+fuse-matmul-gelu")
  std::vector<NodeId> nodes;      // every node the group replaces, ascending ids
  std::vector<FusionStep> steps;  // one, or two for a chain
};

namespace detail {
inline bool holds(std::vector<NodeId> const& v, NodeId n) { return std::ranges::find(v, n) != v.end(); }
}  // namespace detail

/// `g` with `grp`'s steps applied, each found again as the match of its rule over its nodes
/// (plus, for a chained step, what the previous step built): rewrites keep the ids of the
/// nodes they do not remove, so this finds a group in a graph where other disjoint groups
/// were fused since. `added`, when given, receives the nodes the group built that remain.
/// @throws Error naming the rule and a node when a step no longer matches or its rewrite fails.
template <class Set, class Engine>
Graph<Set> apply_group(Graph<Set> g, Engine const& engine, FusionGroup const& grp, std::vector<NodeId>* added = nullptr) {
  std::vector<NodeId> built;
  for (std::size_t k = 0; k < grp.steps.size(); ++k) {
    auto const& step = grp.steps[k];
    std::optional<rules::FoundMatch> found;
    for (auto& f : engine.find_matches(g, step.rule)) {
      std::vector<NodeId> old;
      bool reads_built = false;
      for (NodeId n : f.match.nodes) {
        if (detail::holds(built, n)) reads_built = true;
        else old.push_back(n);
      }
      std::ranges::sort(old);
      if (old == step.nodes && reads_built == (k > 0)) {
        found = std::move(f);
        break;
      }
    }
    std::string const where = grp.rule + " at " + (grp.nodes.empty() ? std::string("?") : g.label(grp.nodes.front()));
    if (!found) throw Error("fusion: " + where + " no longer matches after the other fusions");
    std::string why;
    auto r = engine.apply(g, *found, {}, &why);
    if (!r) throw Error("fusion: " + where + " cannot be applied: " + why);
    std::erase_if(built, [&](NodeId n) { return detail::holds(r->changes.removed, n); });
    built.insert(built.end(), r->changes.added.begin(), r->changes.added.end());
    g = std::move(r->graph);
  }
  if (added) *added = std::move(built);
  return g;
}

/// Every match of every rule of `engine` in `g`; with `chains`, also each group followed by a
/// match that only its result enables (matmul+bias, then that MatMul+GELU), as one group:
/// DPOF then weighs the chain as a whole rather than its first step alone.
template <class Set, class Engine>
std::vector<FusionGroup> fusion_groups(Graph<Set> const& g, Engine const& engine, bool chains = false) {
  std::vector<FusionGroup> out;
  for (auto& f : engine.find_matches(g)) {
    std::vector<NodeId> nodes(f.match.nodes.begin(), f.match.nodes.end());
    std::ranges::sort(nodes);
    out.push_back({f, std::string(engine.name(f.rule)), nodes, {{f.rule, nodes}}});
  }
  if (!chains) return out;
  std::size_t const singles = out.size();
  for (std::size_t i = 0; i < singles; ++i) {
    auto r = engine.apply(g, out[i].match);
    if (!r) continue;
    auto const& built = r->changes.added;
    for (auto& f : engine.find_matches(r->graph)) {
      std::vector<NodeId> old;
      bool reads_built = false;
      for (NodeId n : f.match.nodes) {
        if (detail::holds(built, n)) reads_built = true;
        else old.push_back(n);
      }
      if (!reads_built) continue;
      std::ranges::sort(old);
      std::vector<NodeId> nodes;
      std::ranges::set_union(out[i].nodes, old, std::back_inserter(nodes));
      out.push_back({out[i].match, out[i].rule + "+" + std::string(engine.name(f.rule)), std::move(nodes), {out[i].steps.front(), {f.rule, old}}});
    }
  }
  return out;
}

/// The topological queue of `g` (AutoGTCO §IV-B, "Operator Arrangement"): position by node id.
template <class Set>
std::vector<std::uint32_t> queue_positions(Graph<Set> const& g) {
  std::vector<std::uint32_t> pos(g.id_bound(), ~std::uint32_t{0});
  auto const order = topological_order(g);
  for (std::uint32_t i = 0; i < order.size(); ++i) pos[order[i]] = i;
  return pos;
}

}  // namespace autograph::fusion
