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
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"

namespace autograph {

/// Per-node structural hashes (indexed by NodeId; 0 for removed ids).
template <class Set>
std::vector<std::uint64_t> node_hashes(Graph<Set> const& g) {
  std::vector<std::uint64_t> h(g.id_bound(), 0);
  for (NodeId id : any_topological_order(g)) {
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
  std::vector<NodeId> map(a.id_bound(), no_node);
  std::vector<char> used(b.id_bound(), 0);
  auto bind = [&](NodeId x, NodeId y, std::vector<NodeId>& work) {
    if (map[x] == no_node) {
      if (used[y] || ha[x] != hb[y]) return false;
      map[x] = y;
      used[y] = 1;
      work.push_back(x);
      return true;
    }
    return map[x] == y;
  };
  // 1. Everything that reaches an output is forced: outputs pair up in order, and a matched
  //    node's inputs pair up by position (either order for a commutative op, taking the order
  //    whose producers hash alike). No guessing, so identical twins with different readers
  //    cannot be confused.
  std::vector<NodeId> work;
  for (std::size_t i = 0; i < a.outputs().size(); ++i) {
    Value oa = a.outputs()[i], ob = b.outputs()[i];
    if (oa.port != ob.port || !bind(oa.node, ob.node, work)) return false;
  }
  auto same_inputs = [&](NodeId x, NodeId y, std::vector<NodeId>& w) {
    auto const& na = a[x];
    auto const& nb = b[y];
    if (na.op != nb.op || na.inputs.size() != nb.inputs.size()) return false;
    bool swap = false;
    if (na.op.commutative() && na.inputs.size() == 2) {
      auto hash_of = [](auto const& h, Value v) { return hash_combine(h[v.node], v.port); };
      bool direct = hash_of(ha, na.inputs[0]) == hash_of(hb, nb.inputs[0]) && hash_of(ha, na.inputs[1]) == hash_of(hb, nb.inputs[1]);
      swap = !direct;
    }
    for (std::size_t i = 0; i < na.inputs.size(); ++i) {
      Value va = na.inputs[i], vb = nb.inputs[swap ? 1 - i : i];
      if (va.port != vb.port || !bind(va.node, vb.node, w)) return false;
    }
    return true;
  };
  while (!work.empty()) {
    NodeId x = work.back();
    work.pop_back();
    if (!same_inputs(x, map[x], work)) return false;
  }
  // 2. Nodes no output depends on (rare: inputs nobody reads, dead code) pair up by hash in
  //    topological order, their producers already paired.
  for (NodeId id : topological_order(a)) {
    if (map[id] != no_node) continue;
    bool found = false;
    for (NodeId cand : b.node_ids()) {
      if (used[cand] || hb[cand] != ha[id]) continue;
      std::vector<NodeId> scratch;
      std::vector<NodeId> saved = map;
      std::vector<char> saved_used = used;
      map[id] = cand;
      used[cand] = 1;
      if (same_inputs(id, cand, scratch) && scratch.empty()) {
        found = true;
        break;
      }
      map = std::move(saved);
      used = std::move(saved_used);
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace autograph
