#pragma once
// The candidate fusion groups of a graph: every match of every rule of a fusion engine
// (rules::TransformerFusionEngine for AutoGTCO's transformer fusions), each the set of nodes
// its rewrite replaces, plus the match that rewrites them. Groups may overlap (in
// layer_norm(matmul(x, w) + bias) the Add is both the bias of fuse-matmul-bias and the sum of
// fuse-add-layer-norm): DPOF chooses a disjoint subset (fusion/dpof.hpp).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"
#include "autograph/rules/engine.hpp"

namespace autograph::fusion {

struct FusionGroup {
  rules::FoundMatch match;       // the rule (engine numbering) and its match
  std::string rule;              // the rule's name ("fuse-attention")
  std::vector<NodeId> nodes;     // the matched nodes, ascending ids
};

/// Every match of every rule of `engine` in `g`.
template <class Set, class Engine>
std::vector<FusionGroup> fusion_groups(Graph<Set> const& g, Engine const& engine) {
  std::vector<FusionGroup> out;
  for (auto& f : engine.find_matches(g)) {
    std::vector<NodeId> nodes(f.match.nodes.begin(), f.match.nodes.end());
    std::ranges::sort(nodes);
    out.push_back({f, std::string(engine.name(f.rule)), std::move(nodes)});
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
