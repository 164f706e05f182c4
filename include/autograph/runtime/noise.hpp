#pragma once
// Deciding "faster" from measurements that carry noise. A simulator's latencies are exact, so
// `<` decides; a measured runtime's are samples, and a search that keeps whichever graph
// happened to time lower would keep noise. A runtime that measures offers
//
//   Comparison compare(Graph const& incumbent, Graph const& challenger);
//
// which re-measures both, interleaved (so that drift in clock speed or load hits both
// alike), and calls the challenger faster only when its median is lower by more than a noise
// margin derived from the samples themselves (compare_samples below). The optimizer uses it,
// where the runtime has it, for every decision a measurement makes: a candidate improving on
// the best graph, a rule left out for slowing the graph down.
#include <algorithm>
#include <cmath>
#include <concepts>
#include <string>
#include <vector>

#include "autograph/graph/graph.hpp"

namespace autograph {

struct Comparison {
  double incumbent_ms = 0;   // median
  double challenger_ms = 0;  // median
  double margin_ms = 0;      // how much lower the challenger's median must be to count as faster
  bool faster = false;       // the challenger is faster beyond the margin
};

namespace detail {
inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::ranges::sort(v);
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
/// The standard error of a sample median: 1.2533 σ / √n for a normal population (the
/// asymptotic variance of the median, π σ² / 2n), with σ estimated robustly as 1.4826 × the
/// median absolute deviation, so that a few outliers (a preempted run) do not widen it.
inline double median_standard_error(std::vector<double> const& v) {
  if (v.size() < 2) return INFINITY;
  double m = median_of(v);
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::abs(x - m));
  double sigma = 1.4826 * median_of(dev);
  return 1.2533 * sigma / std::sqrt(static_cast<double>(v.size()));
}
}  // namespace detail

/// Faster when the challenger's median is below the incumbent's by more than `z` standard
/// errors of the difference of the two medians (z = 3: about one false "faster" in 700 when
/// the two are equal), and by at least `min_relative` of the incumbent (differences below it
/// do not survive a change of machine state; 0.5%).
inline Comparison compare_samples(std::vector<double> const& incumbent, std::vector<double> const& challenger, double z = 3,
                                  double min_relative = 0.005) {
  Comparison c;
  c.incumbent_ms = detail::median_of(incumbent);
  c.challenger_ms = detail::median_of(challenger);
  double se_a = detail::median_standard_error(incumbent), se_b = detail::median_standard_error(challenger);
  c.margin_ms = std::max(z * std::sqrt(se_a * se_a + se_b * se_b), min_relative * c.incumbent_ms);
  c.faster = c.challenger_ms < c.incumbent_ms - c.margin_ms;
  return c;
}

/// A runtime whose latencies are measurements: it decides "faster" by compare().
template <class R, class Set = BuiltinOps>
concept ComparingRuntime = requires(R& r, Graph<Set> const& g) {
  { r.compare(g, g) } -> std::same_as<Comparison>;
};

}  // namespace autograph
