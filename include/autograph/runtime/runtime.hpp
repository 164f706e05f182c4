#pragma once
// The runtime concepts, a ladder (each rung refines the one before):
//
//   Measurer          (schedule/measurer.hpp)  double measure(Graph const& g, Schedule const& s);
//   Runtime           + double measure(Graph const& g);   // latency in ms, scheduling g itself
//                     + std::string kind() const;         // "simulated (roofline, H100 SXM)"
//   EstimatingRuntime + cost_model() const;               // the per-kernel OpCostModel a search
//                                                         // ranks candidates with before measuring
//
// Schedule policies need only a Measurer; the Optimizer needs an EstimatingRuntime. Both
// SimulatedRuntime and cuda::CudaGraphRuntime are EstimatingRuntimes.
#include <concepts>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "autograph/cost/op_cost_model.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/schedule/measurer.hpp"
#include "autograph/schedule/schedule.hpp"

namespace autograph {

template <class R, class Set = BuiltinOps>
concept Runtime = Measurer<R, Set> && requires(R& r, R const& cr, Graph<Set> const& g) {
  { r.measure(g) } -> std::convertible_to<double>;
  { cr.kind() } -> std::convertible_to<std::string>;
};

template <class R, class Set = BuiltinOps>
concept EstimatingRuntime = Runtime<R, Set> && requires(R const& r) {
  requires OpCostModel<std::remove_cvref_t<decltype(r.cost_model())>>;
};

/// One kernel of a run: when it started and ended (microseconds from the start of the run).
struct KernelSpan {
  NodeId node = no_node;
  std::uint32_t stream = 0;
  double start_us = 0;  // ready to run (its dependencies done)
  double end_us = 0;
  double fill = 0;      // fraction of the device it occupied (estimates only; 0 when unknown)
};

/// What happened in one run, for reports and timelines.
struct Timeline {
  std::vector<KernelSpan> kernels;
  double total_us = 0;
  std::size_t streams = 0;
  std::size_t waits = 0;
  std::string kind;  // the runtime's kind(): says whether the numbers are measured or simulated
};

}  // namespace autograph
