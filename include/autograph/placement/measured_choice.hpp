#pragma once
// Choosing among placements by measurement, the way the optimizer accepts a graph
// (search/optimizer.hpp's confirm_faster; runtime/noise.hpp): one contender is the incumbent,
// and a challenger replaces it only when the runtime's interleaved comparison calls it faster
// beyond noise. Contenders are taken in order, each challenging whoever holds the place, so
// the first is kept unless something measures faster than it.
//
// The placement searches use it with the single-backend placements first (issue 17: never
// slower than the best single backend): the best single backend holds the place when the
// op-level DP's cover, the graph-level search's winner or AutoGraph's placed graph challenge it,
// and a search result that does not beat it beyond noise is reported as not kept.
//
//   auto choice = placement::choose_measured<PlacedGraph>(contenders, compare, same);
//   contenders[choice.kept].first;   // the label kept; choice.decisions: every comparison made
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/runtime/noise.hpp"

namespace autograph::placement {

/// One challenge: `challenger` against `incumbent` (the holder at that point).
struct Decision {
  std::string incumbent, challenger;
  Comparison comparison;  // runs == 0 and not faster: not measured (the same placement as the incumbent)
  bool same = false;      // the challenger places every group as an earlier contender does
  std::string same_as;    // that contender: the incumbent, or one the incumbent held its place against
  /// "own (+ onednn for the rest) kept: op-level placement 7.25 ms against 7.19 ms, not faster beyond noise (50 runs each)"
  std::string describe() const {
    if (same && same_as == incumbent) return challenger + ": the same placement as " + incumbent + ", not measured again";
    if (same) return incumbent + " kept: " + challenger + " is the same placement as " + same_as + ", which " + incumbent + " holds against, not measured again";
    auto ms = [](double x) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.3f", x);
      return std::string(buf);
    };
    return (comparison.faster ? challenger : incumbent) + " kept: " + challenger + " " + ms(comparison.challenger_ms) + " ms against " +
           ms(comparison.incumbent_ms) + " ms for " + incumbent + (comparison.faster ? ", faster beyond noise" : ", not faster beyond noise") +
           " (margin " + ms(comparison.margin_ms) + " ms, " + std::to_string(comparison.runs) + " runs each)";
  }
};

struct MeasuredChoice {
  std::size_t kept = 0;              // index of the contender kept
  std::vector<Decision> decisions;   // in order, one per challenger
};

/// The contender kept (see the file comment): `compare(incumbent, challenger)` measures the two
/// (a runtime's compare(): interleaved runs, noise margin); `same(a, b)`, when given, says that
/// two contenders are one placement: a challenger that is an earlier contender's placement is
/// not measured and does not take the place (its verdict could only be noise). `decided`: the
/// first contender holds the place and the next `decided - 1` already lost to it elsewhere
/// (the other single backends): they challenge nothing, they only name placements a later
/// challenger may turn out to be.
/// @pre contenders are not null. @throws Error when there are none.
template <class T>
MeasuredChoice choose_measured(std::vector<std::pair<std::string, T const*>> const& contenders,
                               std::function<Comparison(T const&, T const&)> const& compare,
                               std::function<bool(T const&, T const&)> const& same = {}, std::size_t decided = 1) {
  if (contenders.empty()) throw Error("choose_measured(): no placements to choose from");
  MeasuredChoice r;
  for (std::size_t i = std::max<std::size_t>(decided, 1); i < contenders.size(); ++i) {
    auto const& [holder, a] = contenders[r.kept];
    auto const& [label, b] = contenders[i];
    Decision d{holder, label, {}, false, {}};
    // The same placement as an earlier contender: the holder itself, or one that already lost
    // to a holder (a search ending at a single backend's placement): measuring it again could
    // only turn noise into a verdict.
    for (std::size_t j = 0; same && j < i && !d.same; ++j)
      if (same(*contenders[j].second, *b)) {
        d.same = true;
        d.same_as = contenders[j].first;
      }
    if (!d.same) d.comparison = compare(*a, *b);
    if (d.comparison.faster) r.kept = i;
    r.decisions.push_back(std::move(d));
  }
  return r;
}

}  // namespace autograph::placement
