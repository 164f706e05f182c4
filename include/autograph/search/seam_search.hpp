#pragma once
// Seam search (MetaFlow; AutoGraph §4.3 after stitching): chunk searches cannot see a rewrite
// whose match spans two chunks, so a short backtracking search on the stitched graph takes
// the matches across seams — those spanning two chunks or using what the seam search itself
// built. A match inside one chunk was that chunk's search's to take.
#include <cstddef>
#include <functional>
#include <vector>

#include "autograph/rules/engine.hpp"
#include "autograph/search/backtracking.hpp"
#include "autograph/search/plan_assembly.hpp"

namespace autograph {

/// True for a match across a seam. `owner[id]`: the chunk node `id` came from (assemble_plan),
/// PlanChoice::none for the whole graph's inputs and weights; ids past its end are new.
inline bool spans_seam(std::vector<std::size_t> const& owner, rules::FoundMatch const& f) {
  std::size_t first = PlanChoice::none;
  for (NodeId n : f.match.nodes) {
    if (n >= owner.size()) return true;  // built by the seam search
    std::size_t o = owner[n];
    if (o == PlanChoice::none) continue;  // an input or weight of the whole graph
    if (first == PlanChoice::none) first = o;
    else if (o != first) return true;
  }
  return false;
}

template <class Set>
struct SeamSearch {
  Candidate<Set> best;       // the stitched graph with the seam rewrites, costed
  std::size_t expanded = 0;  // graphs the search expanded
};

/// `make_expander(allow)` gives an expander that emits only the matches `allow` accepts.
/// @pre `owner` is the owner map assemble_plan gave for `stitched`.
/// @post best.trail is stitched.trail followed by the seam rewrites; best.cost = cost(best.graph).
template <class Set, class MakeExpander, class Cost>
SeamSearch<Set> search_seams(Candidate<Set> const& stitched, std::vector<std::size_t> const& owner, MakeExpander&& make_expander, Cost&& cost,
                             BacktrackingOptions const& options) {
  auto expand = make_expander(std::function<bool(rules::FoundMatch const&)>([&owner](rules::FoundMatch const& f) { return spans_seam(owner, f); }));
  auto out = backtracking_search(stitched.graph, expand, cost, options);
  return SeamSearch<Set>{Candidate<Set>{std::move(out.best[0].graph), out.best[0].cost, stitched.trail.then(out.best[0].trail)}, out.expanded};
}

}  // namespace autograph
