#pragma once
// GraphFacts: what the placement (pattern generator, op-level DP) and the fusion layer need to
// know about a graph, computed once in O(nodes + edges): a topological position per node, and
// which nodes are placed at all. Sources (Input, Weight) and weight-only nodes (constant subexpressions, which
// the runtimes fold before the first run) are not kernels, so no backend places them.
#include <span>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"
#include "autograph/graph/weight_only.hpp"

namespace autograph {

template <class Set>
class GraphFacts {
 public:
  explicit GraphFacts(Graph<Set> const& g)
      : g_(&g), order_(topological_order(g)), position_(g.id_bound(), npos), placed_(g.id_bound(), 0) {
    weight_only_ = weight_only_nodes(g, std::span<NodeId const>(order_));
    auto const& weight_only = weight_only_;
    for (std::uint32_t i = 0; i < order_.size(); ++i) {
      NodeId n = order_[i];
      position_[n] = i;
      if (!g[n].op.is_source() && !weight_only[n]) {
        placed_[n] = 1;
        placed_order_.push_back(n);
      }
    }
  }
  static constexpr std::uint32_t npos = ~std::uint32_t{0};

  Graph<Set> const& graph() const { return *g_; }
  /// Position in a topological order: a path a -> b implies position(a) < position(b).
  std::uint32_t position(NodeId n) const { return position_[n]; }
  /// Whether a backend must run `n` (not a source, not computed from weights alone).
  bool placed(NodeId n) const { return n < placed_.size() && placed_[n] != 0; }
  /// A Weight, or a node computing from weights alone: a constant whose data is in place before
  /// the first run (a backend may repack it once).
  bool constant(NodeId n) const { return weight_only_[n] != 0; }
  /// The placed nodes, producers first.
  std::span<NodeId const> placed_nodes() const { return placed_order_; }

  /// True when no path leaves `nodes` (ascending) and comes back into it: the group can run as
  /// one kernel. A path from a group node to another through outside nodes only passes nodes
  /// positioned before the group's last node, so the search stays below it.
  bool convex(std::span<NodeId const> nodes) const {
    std::uint32_t last = 0;
    for (NodeId n : nodes) last = std::max(last, position_[n]);
    auto in_group = [&](NodeId n) { return std::ranges::binary_search(nodes, n); };
    std::vector<NodeId> stack;
    std::vector<char> seen;  // sized lazily: most groups have no outside reader below `last`
    for (NodeId n : nodes)
      for (Use u : g_->users(n))
        if (!in_group(u.node) && position_[u.node] < last) stack.push_back(u.node);
    if (stack.empty()) return true;
    seen.assign(g_->id_bound(), 0);
    while (!stack.empty()) {
      NodeId n = stack.back();
      stack.pop_back();
      if (seen[n]) continue;
      seen[n] = 1;
      for (Use u : g_->users(n)) {
        if (in_group(u.node)) return false;
        if (position_[u.node] < last) stack.push_back(u.node);
      }
    }
    return true;
  }

 private:
  Graph<Set> const* g_;
  std::vector<NodeId> order_;
  std::vector<std::uint32_t> position_;
  std::vector<char> placed_;
  std::vector<char> weight_only_;
  std::vector<NodeId> placed_order_;
};

}  // namespace autograph
