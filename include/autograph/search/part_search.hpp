#pragma once
// Chunk searches of AutoGraph §4.3: BSMCP[p], the best graphs the backtracking search finds
// for a chunk p (one part, or several joined) on its own, and every single part searched up
// front on a pool of threads. Searches of different parts share nothing but what `cost` and
// `make_expander` share, which must be safe to call from several threads.
#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <exception>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "autograph/graph/subgraph.hpp"
#include "autograph/search/backtracking.hpp"

namespace autograph {

/// What the part searches need of a partition (search/partition.hpp's Partition has it):
/// `parts[i]`, the operator nodes of part i. Only that, so this header needs no max-flow.
template <class P>
concept PartList = requires(P const& p, std::size_t i) {
  { p.parts.size() } -> std::convertible_to<std::size_t>;
  { *p.parts[i].begin() } -> std::convertible_to<NodeId>;
};

/// One chunk, extracted, and the top graphs its search found (best[0] the cheapest).
template <class Set>
struct ChunkSearch {
  Subgraph<Set> sub;
  std::vector<Candidate<Set>> best;
  std::size_t expanded = 0;  // graphs the search expanded
};

/// BSMCP[p]: the backtracking search (TASO Alg. 2, relaxed) of the chunk made of `parts`.
/// `make_expander()` gives a fresh expander (one per search: it remembers its last expansion).
/// @pre every index of `parts` is a part of `part`, a partition of `g`.
/// @post best is non-empty and sorted by cost.
template <class Set, PartList Parts, class MakeExpander, class Cost>
ChunkSearch<Set> search_chunk(Graph<Set> const& g, Parts const& part, std::span<std::size_t const> parts, MakeExpander&& make_expander,
                              Cost&& cost, BacktrackingOptions const& options) {
  std::vector<NodeId> nodes;
  for (auto p : parts) nodes.insert(nodes.end(), part.parts[p].begin(), part.parts[p].end());
  auto sub = extract(g, nodes);
  auto expand = make_expander();
  auto out = backtracking_search(sub.graph, expand, cost, options);
  return ChunkSearch<Set>{std::move(sub), std::move(out.best), out.expanded};
}

struct PartSearchOptions {
  BacktrackingOptions search{};  // each part's search
  unsigned threads = 0;          // searches in parallel (0: one per hardware thread)
};

/// Runs `task(i)` for i in [0, n) on up to `threads` threads (the caller's among them); the
/// first failure (by index) is rethrown once all have finished.
template <class Task>
void parallel_for_index(std::size_t n, unsigned threads, Task&& task) {
  std::vector<std::exception_ptr> failed(n);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next++) < n;) {
      try {
        task(i);
      } catch (...) {
        failed[i] = std::current_exception();
      }
    }
  };
  std::size_t pool_size = std::min<std::size_t>(n, threads ? threads : std::max(1u, std::thread::hardware_concurrency()));
  {
    std::vector<std::jthread> pool;
    for (std::size_t t = 1; t < pool_size; ++t) pool.emplace_back(worker);
    worker();
  }
  for (auto const& f : failed)
    if (f) std::rethrow_exception(f);
}

/// Every part of `part` searched alone (AutoGraph §4.3: every plan takes each part, alone or
/// grown into a larger chunk, so the single parts are searched up front, on all cores).
/// @post result[i] is part i's search, whatever the number of threads.
template <class Set, PartList Parts, class MakeExpander, class Cost>
std::vector<ChunkSearch<Set>> search_parts_in_parallel(Graph<Set> const& g, Parts const& part, MakeExpander&& make_expander, Cost&& cost,
                                                       PartSearchOptions const& options) {
  std::size_t n = part.parts.size();
  std::vector<std::optional<ChunkSearch<Set>>> found(n);
  parallel_for_index(n, options.threads, [&](std::size_t i) {
    std::size_t const parts[] = {i};
    found[i] = search_chunk(g, part, std::span<std::size_t const>(parts), make_expander, cost, options.search);
  });
  std::vector<ChunkSearch<Set>> out;
  out.reserve(n);
  for (auto& f : found) out.push_back(std::move(*f));
  return out;
}

}  // namespace autograph
