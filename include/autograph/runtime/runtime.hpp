#pragma once
// The Runtime concept: something that says how long a graph takes.
//
//   double measure(Graph const& g);                        // latency in ms, scheduling g itself
//   double measure(Graph const& g, Schedule const& s);     // latency in ms of running s
//   std::string kind() const;                              // "simulated (roofline, H100 SXM)"
//
// A schedule may launch only some of the graph's kernels (one IOS stage); the others count as
// already done. measure(g, Schedule{}) is the fixed cost of one run (launching the graph),
// which stage costs subtract.
//
// Optional: `prepare(g)` returning an object with `measure(schedule)` for many schedules of
// one graph (the simulator indexes the graph once; a GPU runtime would allocate once).
// prepare(runtime, g) below gives every runtime that interface.
#include <concepts>
#include <cstdint>
#include <string>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/schedule/schedule.hpp"

namespace autograph {

template <class R, class Set = BuiltinOps>
concept Runtime = requires(R& r, R const& cr, Graph<Set> const& g, Schedule const& s) {
  { r.measure(g) } -> std::convertible_to<double>;
  { r.measure(g, s) } -> std::convertible_to<double>;
  { cr.kind() } -> std::convertible_to<std::string>;
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

namespace detail {
template <class R, class Set>
struct Unprepared {
  R* runtime;
  Graph<Set> const* graph;
  double measure(Schedule const& s) { return runtime->measure(*graph, s); }
};
}  // namespace detail

/// A measurer for many schedules of one graph: the runtime's own prepare() when it has one.
/// @pre `g` outlives the result.
template <class R, class Set>
  requires Runtime<R, Set>
auto prepare(R& runtime, Graph<Set> const& g) {
  if constexpr (requires { runtime.prepare(g); })
    return runtime.prepare(g);
  else
    return detail::Unprepared<R, Set>{&runtime, &g};
}

}  // namespace autograph
