#pragma once
// Plan assembly (AutoGraph §4.3): the graph of a DP plan is the input with every chosen
// chunk replaced by the graph its search found; the alternatives the measured rounds also try
// are that plan with one chunk's runner-up in place of its best.
#include <cstddef>
#include <span>
#include <vector>

#include "autograph/graph/subgraph.hpp"
#include "autograph/search/part_search.hpp"

namespace autograph {

/// Which of its top graphs one chunk contributes: `rank` for chunk `chunk` of the plan, the
/// best (rank 0) for every other chunk.
struct PlanChoice {
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::size_t chunk = none;
  std::size_t rank = 0;
};

/// The input `g` with each chunk of the plan stitched in.
/// Chunks are stitched in reverse order: a later chunk's boundary inputs name values of earlier
/// chunks, which must still exist when it is stitched.
/// @pre `chunks` are the DP's chunks in plan order (producers first), each a search of `g`;
///      choice.rank < chunks[choice.chunk]->best.size() when a chunk is chosen.
/// @post the result's trail is the chunks' trails in plan order and its cost 0 (not estimated);
///       `owner`, when given, maps every node id of the result to the chunk it came from
///       (PlanChoice::none for the inputs and weights of `g`).
template <class Set>
Candidate<Set> assemble_plan(Graph<Set> const& g, std::span<ChunkSearch<Set> const* const> chunks, PlanChoice choice = {},
                             std::vector<std::size_t>* owner = nullptr) {
  Graph<Set> out = g;
  if (owner) owner->assign(g.id_bound(), PlanChoice::none);
  RewriteTrail trail;
  for (std::size_t c = chunks.size(); c-- > 0;) {
    auto const& chunk = *chunks[c];
    std::size_t rank = c == choice.chunk ? choice.rank : 0;
    stitch(out, chunk.sub, chunk.best[rank].graph, /*cleanup=*/false);
    if (owner) owner->resize(out.id_bound(), c);
    trail = trail.then(chunk.best[rank].trail);
  }
  out.remove_dead();
  return Candidate<Set>{std::move(out), 0.0, std::move(trail)};
}

/// The plan with one chunk's runner-up in place of its best, chunk by chunk and rank by rank,
/// at most `limit` of them, each costed by `cost`.
template <class Set, class Cost>
std::vector<Candidate<Set>> plan_alternatives(Graph<Set> const& g, std::span<ChunkSearch<Set> const* const> chunks, Cost&& cost,
                                              std::size_t limit) {
  std::vector<Candidate<Set>> out;
  for (std::size_t c = 0; c < chunks.size() && out.size() < limit; ++c)
    for (std::size_t k = 1; k < chunks[c]->best.size() && out.size() < limit; ++k) {
      auto alt = assemble_plan(g, chunks, PlanChoice{c, k});
      alt.cost = cost(alt.graph);
      out.push_back(std::move(alt));
    }
  return out;
}

}  // namespace autograph
