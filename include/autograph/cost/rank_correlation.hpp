#pragma once
// Rank correlation: does an estimate order candidates the way measurements do? A search only
// needs the ranking to be right, so the measure is Spearman's rank correlation between
// estimated and measured latencies (1: the same order; 0: unrelated; -1: reversed).
// Device-neutral: the GPU calibration (cuda/calibration.hpp) and the CPU rank benchmark
// (benchmark/cpu_rank.cpp) both use it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "autograph/core/error.hpp"

namespace autograph {

/// 1-based ranks of v; tied values share the average of their ranks.
inline std::vector<double> ranks(std::span<double const> v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::ranges::stable_sort(order, {}, [&](std::size_t i) { return v[i]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    double average = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = average;
    i = j + 1;
  }
  return r;
}

/// Pearson's correlation; NaN when a series is constant or has fewer than two values.
/// @throws Error when the series differ in length.
inline double pearson(std::span<double const> x, std::span<double const> y) {
  if (x.size() != y.size()) throw Error("correlation of series of different lengths (" + std::to_string(x.size()) + " and " + std::to_string(y.size()) + ")");
  std::size_t n = x.size();
  if (n < 2) return std::numeric_limits<double>::quiet_NaN();
  double mx = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(n);
  double my = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0 || syy == 0) return std::numeric_limits<double>::quiet_NaN();
  return sxy / std::sqrt(sxx * syy);
}

/// Spearman's rank correlation: Pearson's correlation of the ranks (ties averaged).
inline double spearman(std::span<double const> x, std::span<double const> y) {
  auto rx = ranks(x), ry = ranks(y);
  return pearson(rx, ry);
}

}  // namespace autograph
