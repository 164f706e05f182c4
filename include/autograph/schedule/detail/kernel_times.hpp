#pragma once
// Each kernel's time alone, asked of a runtime: one single-kernel schedule per kernel, minus
// the fixed cost of a run.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/measurer.hpp"

namespace autograph::schedule::detail {

/// Milliseconds of kernel `k` of `dag` run alone through `prepared`, less `base_ms` (what a run
/// of no kernel takes: waking the stream, nothing else); never negative.
template <class Prepared>
double kernel_time_ms(KernelDag const& dag, Prepared& prepared, std::size_t k, double base_ms) {
  Schedule one;
  one.streams.assign(1, {Launch{}});
  one.streams[0][0].node = dag.node(k);
  return std::max(0.0, prepared.measure(one) - base_ms);
}

/// Milliseconds of each kernel of `dag` (indexed by kernel), measured through `prepared`.
template <class Prepared>
std::vector<double> kernel_times_ms(KernelDag const& dag, Prepared& prepared) {
  double base = prepared.measure(Schedule{});
  std::vector<double> ms(dag.size());
  for (std::size_t k = 0; k < dag.size(); ++k) ms[k] = kernel_time_ms(dag, prepared, k, base);
  return ms;
}

}  // namespace autograph::schedule::detail
