#pragma once
// A structural hash that ignores node numbering and names: each node hashes its operator
// (type and parameters) with its inputs' hashes and ports; the graph hashes its outputs in
// order plus the multiset of all node hashes. The same graph built in another order hashes
// the same; a different parameter anywhere hashes differently. Input nodes hash by their
// label and descriptor, so which input feeds where is part of the identity. The two inputs of
// a commutative op (Add, Mul, Max, Min) hash as a set: a + b and b + a are one graph, so a
// search never explores both.
#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"

namespace autograph {

/// Per-node structural hashes (indexed by NodeId; 0 for removed ids).
template <class Set>
std::vector<std::uint64_t> node_hashes(Graph<Set> const& g) {
  std::vector<std::uint64_t> h(g.id_bound(), 0);
  for (NodeId id : topological_order(g)) {
    auto const& n = g[id];
    std::uint64_t x = n.op.hash();
    if (n.op.commutative() && n.inputs.size() == 2) {
      std::uint64_t a = hash_combine(h[n.inputs[0].node], n.inputs[0].port), b = hash_combine(h[n.inputs[1].node], n.inputs[1].port);
      x = hash_combine(hash_combine(x, std::min(a, b)), std::max(a, b));
    } else {
      for (Value in : n.inputs) x = hash_combine(x, hash_combine(h[in.node], in.port));
    }
    h[id] = mix64(x);
  }
  return h;
}

template <class Set>
std::uint64_t structural_hash(Graph<Set> const& g) {
  auto h = node_hashes(g);
  std::uint64_t all = 0;  // commutative: independent of numbering
  for (NodeId id : g.node_ids()) all += mix64(h[id] ^ 0x5bd1e995ULL);
  std::uint64_t outs = mix64(g.outputs().size());
  for (Value o : g.outputs()) outs = hash_combine(outs, hash_combine(h[o.node], o.port));
  return hash_combine(outs, all);
}

/// True when `a` and `b` are the same graph up to node numbering and names: a bijection of
/// live nodes that preserves operators, input order (either order for commutative ops) and
/// ports, and graph outputs.
/// Confirms a hash match (search never trusts the hash alone).
template <class Set>
bool structurally_equal(Graph<Set> const& a, Graph<Set> const& b) {
  if (a.num_nodes() != b.num_nodes() || a.outputs().size() != b.outputs().size()) return false;
  auto ha = node_hashes(a), hb = node_hashes(b);
  // Nodes of b grouped by hash; match a's nodes in topological order to an unused b node with
  // the same hash, same operator and inputs mapped to the matched producers.
  std::unordered_multimap<std::uint64_t, NodeId> by_hash;
  for (NodeId id : b.node_ids()) by_hash.emplace(hb[id], id);
  std::vector<NodeId> map(a.id_bound(), no_node);
  std::vector<char> used(b.id_bound(), 0);
  for (NodeId id : topological_order(a)) {
    auto const& na = a[id];
    auto [lo, hi] = by_hash.equal_range(ha[id]);
    bool found = false;
    for (auto it = lo; it != hi && !found; ++it) {
      NodeId cand = it->second;
      auto const& nb = b[cand];
      if (used[cand] || na.op != nb.op || na.inputs.size() != nb.inputs.size()) continue;
      auto maps_to = [&](Value va, Value vb) { return map[va.node] == vb.node && va.port == vb.port; };
      bool same = true;
      for (std::size_t i = 0; i < na.inputs.size() && same; ++i) same = maps_to(na.inputs[i], nb.inputs[i]);
      if (!same && na.op.commutative() && na.inputs.size() == 2)
        same = maps_to(na.inputs[0], nb.inputs[1]) && maps_to(na.inputs[1], nb.inputs[0]);
      if (same) {
        map[id] = cand;
        used[cand] = 1;
        found = true;
      }
    }
    if (!found) return false;
  }
  for (std::size_t i = 0; i < a.outputs().size(); ++i) {
    Value oa = a.outputs()[i], ob = b.outputs()[i];
    if (map[oa.node] != ob.node || oa.port != ob.port) return false;
  }
  return true;
}

}  // namespace autograph
