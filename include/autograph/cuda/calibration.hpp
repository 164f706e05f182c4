#pragma once
// Calibration: does an estimate (the simulated runtime, a cost policy) rank candidate graphs
// the way the GPU does? The search only needs the ranking to be right, so the measure is
// Spearman's rank correlation between estimated and measured latencies of the candidates
// (1: the same order; 0: unrelated; -1: reversed).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/cuda/runtime.hpp"

namespace autograph::cuda {

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

/// One candidate of a calibration: a graph and the schedule it runs with.
template <class Set>
struct Workload {
  std::string name;
  Graph<Set> graph;
  Schedule schedule;
};

struct Calibration {
  std::vector<std::string> names;
  std::vector<double> estimated_ms, measured_ms;
  double spearman = std::numeric_limits<double>::quiet_NaN();
  std::string estimator, measured_on;
};

/// Estimates and measures every candidate; `estimate(graph, schedule)` returns ms (a
/// SimulatedRuntime's measure, or any other estimate). Runs on the GPU.
template <class Set, class Estimate>
Calibration calibrate(std::span<Workload<Set> const> candidates, Estimate&& estimate, CudaGraphRuntime& gpu, std::string estimator = {}) {
  Calibration c;
  c.estimator = std::move(estimator);
  c.measured_on = gpu.kind();
  for (auto const& cand : candidates) {
    c.names.push_back(cand.name);
    c.estimated_ms.push_back(static_cast<double>(estimate(cand.graph, cand.schedule)));
    c.measured_ms.push_back(gpu.measure(cand.graph, cand.schedule));
  }
  c.spearman = spearman(c.estimated_ms, c.measured_ms);
  return c;
}

}  // namespace autograph::cuda
