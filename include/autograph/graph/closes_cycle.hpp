#pragma once
// closes_cycle(): the cycle check after a local change, without a whole topological order.
#include <span>
#include <utility>
#include <vector>

#include "autograph/graph/graph.hpp"

namespace autograph {

/// Whether `g` has a cycle through one of `nodes`. Depth-first along readers from each,
/// iteratively; visits only what they reach. A rewrite's every new edge starts or ends at one
/// of its new nodes or replacement values, so a cycle it closed passes through one of them.
template <class Set>
bool closes_cycle(Graph<Set> const& g, std::span<NodeId const> nodes) {
  enum : char { unseen, open, done };
  std::vector<char> state(g.id_bound(), unseen);
  std::vector<std::pair<NodeId, std::size_t>> stack;  // (node, next reader to visit)
  for (NodeId root : nodes) {
    if (!g.contains(root) || state[root] != unseen) continue;
    state[root] = open;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      auto readers = g.users(n);
      if (next == readers.size()) {
        state[n] = done;
        stack.pop_back();
        continue;
      }
      NodeId u = readers[next++].node;
      if (state[u] == open) return true;
      if (state[u] == unseen) {
        state[u] = open;
        stack.emplace_back(u, 0);
      }
    }
  }
  return false;
}

}  // namespace autograph
