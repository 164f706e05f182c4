#pragma once
// The dynamic program over partition sequences (AutoGraph §4.3):
//
//   MCP[G] = min_{p ∈ P_c(G)} ( MCP[G − p] + BSMCP[p] ),   MCP[∅] = 0
//
// G is the set of parts not yet taken (a bitset, memoized); a candidate p is a *beginning*
// chunk of G — a part none of whose predecessor parts remain, possibly grown along its
// successors into a connected chunk of at most `chunk_upper` operators, so that rewrites
// spanning a small part's border are found inside a larger chunk. BSMCP[p] is the cost of the
// best graph the backtracking search finds for chunk p on its own (memoized per chunk).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <unordered_map>
#include <vector>

#include "autograph/core/precompiled.hpp"
#include "autograph/search/partition.hpp"

namespace autograph {

struct PartitionDpOptions {
  std::size_t chunk_upper = 120;  // operators per chunk at most
  std::size_t max_growth = 3;     // parts per chunk at most
  std::size_t max_states = 20000; // memo entries before falling back to one chunk per part
};

/// The chunks the DP chose, in an order where every chunk's producers come before it.
struct PartitionPlan {
  std::vector<std::vector<std::size_t>> chunks;  // part indices per chunk
  double cost = 0;                               // Σ BSMCP over the chosen chunks
  std::size_t states = 0;                        // DP states evaluated
  std::size_t chunk_searches = 0;                // distinct chunks searched
  bool fell_back = false;                        // max_states reached: single parts only from there
};

namespace detail {
using PartSet = std::vector<std::uint64_t>;
struct PartSetHash {
  std::size_t operator()(PartSet const& s) const {
    std::uint64_t h = 0;
    for (auto w : s) h = hash_combine(h, w);
    return h;
  }
};
inline bool has(PartSet const& s, std::size_t i) { return (s[i / 64] >> (i % 64)) & 1u; }
inline void put(PartSet& s, std::size_t i) { s[i / 64] |= std::uint64_t{1} << (i % 64); }
inline void drop(PartSet& s, std::size_t i) { s[i / 64] &= ~(std::uint64_t{1} << (i % 64)); }
}  // namespace detail

/// `chunk_cost(parts)` returns BSMCP of the chunk made of those parts (the caller memoizes
/// and keeps the optimized chunk graph).
PartitionPlan partition_dp(Partition const& p, std::function<double(std::vector<std::size_t> const&)> const& chunk_cost,
                           PartitionDpOptions const& opt = {});
#if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_PARTITION)
AUTOGRAPH_DEFAULTS_INLINE PartitionPlan partition_dp(Partition const& p, std::function<double(std::vector<std::size_t> const&)> const& chunk_cost,
                                                     PartitionDpOptions const& opt) {
  using namespace detail;
  std::size_t n = p.parts.size();
  PartitionPlan plan;
  if (n == 0) return plan;
  std::vector<std::vector<std::size_t>> preds(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j : p.succ[i]) preds[j].push_back(i);

  std::unordered_map<PartSet, double, PartSetHash> chunk_memo;
  auto bsmcp = [&](std::vector<std::size_t> chunk) {
    std::ranges::sort(chunk);
    PartSet key((n + 63) / 64, 0);
    for (auto i : chunk) put(key, i);
    auto it = chunk_memo.find(key);
    if (it != chunk_memo.end()) return it->second;
    ++plan.chunk_searches;
    return chunk_memo.emplace(key, chunk_cost(chunk)).first->second;
  };
  // Candidate chunks of the remaining set: each ready part, grown along successors whose
  // other predecessors are gone or inside the chunk.
  auto candidates = [&](PartSet const& remaining) {
    std::vector<std::vector<std::size_t>> out;
    auto ready = [&](std::size_t j, std::vector<std::size_t> const& chunk) {
      return std::ranges::all_of(preds[j], [&](std::size_t q) { return !has(remaining, q) || std::ranges::find(chunk, q) != chunk.end(); });
    };
    for (std::size_t r = 0; r < n; ++r) {
      if (!has(remaining, r) || !ready(r, {})) continue;
      std::vector<std::size_t> chunk{r};
      std::size_t size = p.parts[r].size();
      out.push_back(chunk);
      while (chunk.size() < opt.max_growth) {
        std::size_t next = n;
        for (std::size_t c : chunk)
          for (std::size_t s : p.succ[c])
            if (has(remaining, s) && std::ranges::find(chunk, s) == chunk.end() && ready(s, chunk) && s < next) next = s;
        if (next == n || size + p.parts[next].size() > opt.chunk_upper) break;
        chunk.push_back(next);
        size += p.parts[next].size();
        out.push_back(chunk);
        std::ranges::sort(out.back());  // a chunk is a set: one spelling per set
      }
    }
    return out;
  };

  struct Entry {
    double cost;
    std::vector<std::size_t> chunk;  // the first chunk taken from this state
  };
  std::unordered_map<PartSet, Entry, PartSetHash> memo;
  PartSet all((n + 63) / 64, 0);
  for (std::size_t i = 0; i < n; ++i) put(all, i);
  bool fell_back = false;

  std::function<double(PartSet const&)> mcp = [&](PartSet const& remaining) -> double {
    if (std::ranges::all_of(remaining, [](std::uint64_t w) { return w == 0; })) return 0.0;
    if (auto it = memo.find(remaining); it != memo.end()) return it->second.cost;
    ++plan.states;
    Entry best{std::numeric_limits<double>::infinity(), {}};
    auto cands = candidates(remaining);
    if (memo.size() >= opt.max_states) {  // too many states: take single parts only
      fell_back = true;
      cands.erase(std::remove_if(cands.begin(), cands.end(), [](auto const& c) { return c.size() > 1; }), cands.end());
      cands.resize(1);
    }
    for (auto const& chunk : cands) {
      PartSet rest = remaining;
      for (auto i : chunk) drop(rest, i);
      double c = bsmcp(chunk) + mcp(rest);
      if (c < best.cost) best = {c, chunk};
    }
    memo[remaining] = best;
    return best.cost;
  };
  plan.cost = mcp(all);
  plan.fell_back = fell_back;
  for (PartSet rem = all; std::ranges::any_of(rem, [](std::uint64_t w) { return w != 0; });) {
    auto const& e = memo.at(rem);
    if (e.chunk.empty()) throw Error("partition_dp(): no part can be taken first; the part graph has a cycle");
    plan.chunks.push_back(e.chunk);
    for (auto i : e.chunk) drop(rem, i);
  }
  return plan;
}
#endif

}  // namespace autograph
