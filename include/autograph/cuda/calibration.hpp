#pragma once
// Calibration: does an estimate (the simulated runtime, a cost policy) rank candidate graphs
// the way the GPU does? The search only needs the ranking to be right, so the measure is
// Spearman's rank correlation (cost/rank_correlation.hpp) between estimated and measured
// latencies of the candidates.
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/cost/rank_correlation.hpp"
#include "autograph/cuda/runtime.hpp"

namespace autograph::cuda {

// ranks, pearson and spearman live in cost/rank_correlation.hpp (the CPU benchmark uses them
// too); the calibration's callers name them here as before.
using autograph::pearson;
using autograph::ranks;
using autograph::spearman;

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
