#pragma once
// Each kernel's time alone, asked of a runtime: one single-kernel schedule per kernel, minus
// the fixed cost of a run.
#include <vector>

#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/measurer.hpp"

namespace autograph::schedule::detail {

/// Milliseconds of each kernel of `dag` (indexed by kernel), measured through `prepared`.
template <class Prepared>
std::vector<double> kernel_times_ms(KernelDag const& dag, Prepared& prepared) {
  double base = prepared.measure(Schedule{});
  std::vector<double> ms(dag.size());
  Schedule one;
  one.streams.resize(1);
  one.streams[0].resize(1);
  for (std::size_t k = 0; k < dag.size(); ++k) {
    one.streams[0][0].node = dag.node(k);
    ms[k] = std::max(0.0, prepared.measure(one) - base);
  }
  return ms;
}

}  // namespace autograph::schedule::detail
