#pragma once
// Natural block boundaries for IOS: positions of the kernel order crossed by few values.
//
// A block of IOS is a run of the kernel order; its DP never puts kernels of two blocks in one
// stage. Where few values cross, few kernels on either side wait for each other: at a NASNet
// cell boundary only the two values every later cell reads cross (the outputs of the previous
// two cells), while a cut in the middle of a cell separates kernels that could have shared a
// stage. It is not always the best cut (the planner in ios.hpp also tries cutting along
// levels alone and keeps the better plan).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "autograph/schedule/kernel_dag.hpp"

namespace autograph::schedule::detail {

/// live[p], p in 0..size: how many kernels before position p of the kernel order have a
/// reader at p or later — the values a cut before kernel p keeps alive.
inline std::vector<std::uint32_t> live_across(KernelDag const& dag) {
  std::size_t n = dag.size();
  std::vector<std::int64_t> delta(n + 1, 0);
  for (std::size_t u = 0; u < n; ++u) {
    std::size_t last = u;
    for (std::uint32_t v : dag.succs(u)) last = std::max<std::size_t>(last, v);
    if (last > u) {  // live across u+1 .. last
      delta[u + 1] += 1;
      delta[last + 1] -= 1;
    }
  }
  std::vector<std::uint32_t> live(n + 1, 0);
  std::int64_t running = 0;
  for (std::size_t p = 0; p <= n; ++p) live[p] = static_cast<std::uint32_t>(running += delta[p]);
  return live;
}

/// Cuts the run [lo, hi) at its natural boundaries: positions crossed by at most
/// `max_values` live values (`live`, from live_across), of each run of such positions the
/// first — right after the boundary's values are made; the kernels just after it (a NASNet
/// cell adjusting its inputs) read those values and belong with the block that reads them.
/// Then, left to right, a piece joins the next when both fit together (`fits(from, to)`:
/// within the block limits), or when it fits and the next does not: a small piece before a
/// block that is cut along its levels anyway would only hold apart kernels that cut keeps
/// together; the last piece joins the one before it on the same grounds. Returns the cut
/// positions, ascending.
inline std::vector<std::size_t> natural_cuts(std::size_t lo, std::size_t hi, std::vector<std::uint32_t> const& live, std::size_t max_values,
                                             std::function<bool(std::size_t, std::size_t)> const& fits) {
  std::vector<std::size_t> ends;  // piece ends, the run's own end last
  for (std::size_t p = lo + 1; p < hi; ++p)
    if (live[p] <= max_values && live[p - 1] > max_values) ends.push_back(p);
  ends.push_back(hi);
  std::vector<std::size_t> cuts;
  std::size_t from = lo;
  for (std::size_t i = 0; i + 1 < ends.size(); ++i) {
    bool fits_now = fits(from, ends[i]);
    if ((fits_now && !fits(ends[i], ends[i + 1])) || fits(from, ends[i + 1])) continue;  // no cut: the pieces join
    cuts.push_back(ends[i]);
    from = ends[i];
  }
  if (!cuts.empty() && fits(cuts.back(), hi) && !fits(cuts.size() > 1 ? cuts[cuts.size() - 2] : lo, cuts.back())) cuts.pop_back();
  return cuts;
}

}  // namespace autograph::schedule::detail
