#pragma once
// Maximum bipartite matching (Hopcroft–Karp, O(E sqrt V)). Used for Dilworth's theorem
// (graph width = nodes − maximum matching over the reachability relation) and for Nimble's
// chain formation.
#include <limits>
#include <queue>
#include <vector>

#include "autograph/core/precompiled.hpp"

namespace autograph {

/// left_to_right[l] lists the right vertices l may be matched with. Returns, for each left
/// vertex, its matched right vertex or -1.
std::vector<int> max_bipartite_matching(int n_left, int n_right, std::vector<std::vector<int>> const& left_to_right);
#if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_GRAPH)
AUTOGRAPH_DEFAULTS_INLINE std::vector<int> max_bipartite_matching(int n_left, int n_right, std::vector<std::vector<int>> const& left_to_right) {
  constexpr int inf = std::numeric_limits<int>::max();
  std::vector<int> match_l(static_cast<std::size_t>(n_left), -1), match_r(static_cast<std::size_t>(n_right), -1);
  std::vector<int> dist(static_cast<std::size_t>(n_left));
  auto bfs = [&] {
    std::queue<int> q;
    bool found = false;
    for (int l = 0; l < n_left; ++l) {
      dist[l] = match_l[l] < 0 ? 0 : inf;
      if (match_l[l] < 0) q.push(l);
    }
    while (!q.empty()) {
      int l = q.front();
      q.pop();
      for (int r : left_to_right[l]) {
        int next = match_r[r];
        if (next < 0) found = true;
        else if (dist[next] == inf) {
          dist[next] = dist[l] + 1;
          q.push(next);
        }
      }
    }
    return found;
  };
  // Iterative DFS along the BFS layers (recursion would overflow on long chains).
  std::vector<std::size_t> it(static_cast<std::size_t>(n_left));
  auto dfs = [&](int root) {
    std::vector<int> stack{root};
    while (!stack.empty()) {
      int l = stack.back();
      bool advanced = false;
      while (it[l] < left_to_right[l].size()) {
        int r = left_to_right[l][it[l]++];
        int next = match_r[r];
        if (next < 0) {  // augmenting path found: flip it back along the stack
          for (std::size_t k = stack.size(); k-- > 0;) {
            int ll = stack[k];
            int rr = left_to_right[ll][it[ll] - 1];
            match_r[rr] = ll;
            match_l[ll] = rr;
          }
          return true;
        }
        if (dist[next] == dist[l] + 1) {
          stack.push_back(next);
          advanced = true;
          break;
        }
      }
      if (!advanced) {
        dist[l] = inf;
        stack.pop_back();
      }
    }
    return false;
  };
  while (bfs()) {
    std::fill(it.begin(), it.end(), 0);
    for (int l = 0; l < n_left; ++l)
      if (match_l[l] < 0) dfs(l);
  }
  return match_l;
}
#endif

}  // namespace autograph
