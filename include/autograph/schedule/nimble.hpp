#pragma once
// Nimble's stream assignment (Kwon et al., "Nimble: Lightweight and Parallel GPU Task
// Scheduling for Deep Learning", NeurIPS 2020, Algorithm 1), with two improvements:
//
// 1. Chains. Take the transitive reduction of the kernel DAG (its minimum equivalent graph)
//    and a maximum bipartite matching over its edges; every matched edge u -> v puts v right
//    after u on u's stream. Two kernels that may run concurrently never share a stream, so
//    the schedule keeps all the graph's parallelism.
// 2. Fewer streams. Chains from step 1 can outnumber the graph's width. A second matching,
//    over "the last kernel of chain A reaches the first of chain B", appends B after A on one
//    stream; B could not start before A's end anyway, so nothing is serialised that was not.
// 3. Fewer waits: insert_waits() adds a wait only where the stream order and the other waits
//    do not already imply it (Nimble's code waits on every producer on another stream).
#include <chrono>
#include <vector>

#include "autograph/core/precompiled.hpp"
#include "autograph/graph/matching.hpp"
#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/policy.hpp"
#include "autograph/schedule/waits.hpp"

namespace autograph::schedule {

/// Edges of the transitive reduction: succs[k] keeps v only when no other successor of k
/// reaches v.
std::vector<std::vector<std::uint32_t>> transitive_reduction(KernelDag const& dag);
#if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_SCHEDULE)
AUTOGRAPH_DEFAULTS_INLINE std::vector<std::vector<std::uint32_t>> transitive_reduction(KernelDag const& dag) {
  std::vector<std::vector<std::uint32_t>> reduced(dag.size());
  for (std::size_t k = 0; k < dag.size(); ++k) {
    auto succ = dag.succs(k);
    for (std::uint32_t v : succ) {
      bool implied = std::ranges::any_of(succ, [&](std::uint32_t w) { return w != v && dag.reaches(w, v); });
      if (!implied) reduced[k].push_back(v);
    }
  }
  return reduced;
}
#endif

/// Streams as lists of kernel indices of `dag` (see the header comment for the steps).
std::vector<std::vector<std::uint32_t>> nimble_streams(KernelDag const& dag);
#if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_SCHEDULE)
AUTOGRAPH_DEFAULTS_INLINE std::vector<std::vector<std::uint32_t>> nimble_streams(KernelDag const& dag) {
  int n = static_cast<int>(dag.size());
  auto reduced = transitive_reduction(dag);
  std::vector<std::vector<int>> adj(dag.size());
  for (std::size_t k = 0; k < dag.size(); ++k) adj[k].assign(reduced[k].begin(), reduced[k].end());
  auto next = max_bipartite_matching(n, n, adj);
  std::vector<char> has_prev(dag.size(), 0);
  for (int k = 0; k < n; ++k)
    if (next[k] >= 0) has_prev[next[k]] = 1;
  std::vector<std::vector<std::uint32_t>> chains;
  for (int k = 0; k < n; ++k) {
    if (has_prev[k]) continue;
    std::vector<std::uint32_t> c;
    for (int v = k; v >= 0; v = next[v]) c.push_back(static_cast<std::uint32_t>(v));
    chains.push_back(std::move(c));
  }
  // Second matching: chain a may be followed by chain b when a's last kernel reaches b's first.
  int m = static_cast<int>(chains.size());
  std::vector<std::vector<int>> chain_adj(chains.size());
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b)
      if (a != b && dag.reaches(chains[a].back(), chains[b].front())) chain_adj[a].push_back(b);
  auto follow = max_bipartite_matching(m, m, chain_adj);
  std::vector<char> followed(chains.size(), 0);
  for (int a = 0; a < m; ++a)
    if (follow[a] >= 0) followed[follow[a]] = 1;
  std::vector<std::vector<std::uint32_t>> streams;
  for (int a = 0; a < m; ++a) {
    if (followed[a]) continue;
    std::vector<std::uint32_t> s;
    for (int c = a; c >= 0; c = follow[c]) s.insert(s.end(), chains[c].begin(), chains[c].end());
    streams.push_back(std::move(s));
  }
  std::ranges::sort(streams, {}, [](auto const& s) { return s.front(); });  // the stream with the first kernel is stream 0
  return streams;
}
#endif

Schedule nimble(KernelDag const& dag);
#if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_SCHEDULE)
AUTOGRAPH_DEFAULTS_INLINE Schedule nimble(KernelDag const& dag) {
  std::vector<std::vector<NodeId>> streams;
  for (auto const& s : nimble_streams(dag)) {
    streams.emplace_back();
    for (std::uint32_t k : s) streams.back().push_back(dag.node(k));
  }
  return insert_waits(dag, streams);
}
#endif

struct Nimble {
  static constexpr std::string_view name = "nimble";
  template <class Set, class R>
  ScheduledGraph<Set> operator()(Graph<Set> const& g, R&) const {
    auto t0 = std::chrono::steady_clock::now();
    Schedule s = nimble(KernelDag(g));
    return {g, std::move(s), std::string(name), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  }
};

}  // namespace autograph::schedule
