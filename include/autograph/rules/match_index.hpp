#pragma once
// MatchIndex: what one match pass over a graph needs, built once per graph in O(nodes + edges):
// nodes grouped by operator type (matching starts from it, never from every node), each node's
// depth (longest path from a source: a path a -> b implies depth(a) < depth(b), which rules out
// most cycle checks at once), which nodes compute only from weights, and a reachability closure
// built on first use for the cycle checks depth cannot settle.
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/graph/reachability.hpp"
#include "autograph/graph/weight_only.hpp"

namespace autograph::rules {

template <class Set = BuiltinOps>
class MatchIndex {
 public:
  explicit MatchIndex(Graph<Set> const& g);

  Graph<Set> const& graph() const { return *g_; }
  /// Live nodes holding an operator of the given type (AnyOp::type_id()), ascending.
  std::span<NodeId const> nodes_of(void const* type) const {
    auto it = by_type_.find(type);
    return it == by_type_.end() ? std::span<NodeId const>{} : std::span<NodeId const>(it->second);
  }
  std::uint32_t depth(NodeId n) const { return depth_[n]; }
  /// True when the node is a Weight or computes only from weights (a constant subexpression).
  bool weight_only(NodeId n) const { return weight_only_[n] != 0; }
  /// True when a path of at least one edge leads from a to b.
  bool reaches(NodeId a, NodeId b) const {
    if (depth_[a] >= depth_[b]) return false;
    if (!reach_) reach_.emplace(*g_);
    return reach_->reaches(a, b);
  }

 private:
  Graph<Set> const* g_;
  std::unordered_map<void const*, std::vector<NodeId>> by_type_;
  std::vector<std::uint32_t> depth_;
  std::vector<char> weight_only_;
  mutable std::optional<Reachability> reach_;
};

// Defined outside the class so that the `extern template` below holds at -O2 (see rules/engine.hpp).
template <class Set>
MatchIndex<Set>::MatchIndex(Graph<Set> const& g) : g_(&g), depth_(g.id_bound(), 0) {
  std::vector<std::uint32_t> missing(g.id_bound(), 0);
  std::vector<NodeId> ready;
  ready.reserve(g.num_nodes());
  for (NodeId id : g.node_ids()) {
    by_type_[g[id].op.type_id()].push_back(id);
    missing[id] = static_cast<std::uint32_t>(g[id].inputs.size());
    if (missing[id] == 0) ready.push_back(id);
  }
  // Kahn's algorithm, FIFO: depth flows from producers to readers.
  for (std::size_t head = 0; head < ready.size(); ++head) {
    NodeId id = ready[head];
    std::uint32_t d = 0;
    for (Value in : g[id].inputs) d = std::max(d, depth_[in.node] + 1);
    depth_[id] = d;
    for (Use u : g.users(id))
      if (--missing[u.node] == 0) ready.push_back(u.node);
  }
  if (ready.size() != g.num_nodes()) throw GraphError("MatchIndex: the graph has a cycle");
  weight_only_ = weight_only_nodes(g, std::span<NodeId const>(ready));  // `ready` is a topological order
}

#if defined(AUTOGRAPH_PRECOMPILED)
extern template class MatchIndex<BuiltinOps>;  // src/defaults/rules_core.cpp
#endif

}  // namespace autograph::rules
