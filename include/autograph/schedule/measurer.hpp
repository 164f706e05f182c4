#pragma once
// The Measurer concept: what a schedule policy asks of whatever runs the graph — how long a
// schedule of it takes. Greedy asks it for kernel times, IOS for stage times.
//
//   double measure(Graph const& g, Schedule const& s);     // latency in ms of running s
//
// A schedule may launch only some of the graph's kernels (one IOS stage); the others count as
// already done. measure(g, Schedule{}) is the fixed cost of one run (launching the graph),
// which stage costs subtract.
//
// Optional: `prepare(g)` returning an object with `measure(schedule)` for many schedules of
// one graph (the simulator indexes the graph once; a GPU runtime would allocate once).
// prepare(measurer, g) below gives every measurer that interface.
//
// schedule/ owns this concept so that it needs nothing of runtime/: the Runtime concept
// (runtime/runtime.hpp) refines it, and runtimes include schedules, not the other way round.
#include <concepts>

#include "autograph/graph/graph.hpp"
#include "autograph/schedule/schedule.hpp"

namespace autograph {

template <class M, class Set = BuiltinOps>
concept Measurer = requires(M& m, Graph<Set> const& g, Schedule const& s) {
  { m.measure(g, s) } -> std::convertible_to<double>;
};

namespace detail {
template <class M, class Set>
struct Unprepared {
  M* measurer;
  Graph<Set> const* graph;
  double measure(Schedule const& s) { return measurer->measure(*graph, s); }
};
}  // namespace detail

/// A measurer for many schedules of one graph: the measurer's own prepare() when it has one.
/// @pre `g` outlives the result.
template <class M, class Set>
  requires Measurer<M, Set>
auto prepare(M& measurer, Graph<Set> const& g) {
  if constexpr (requires { measurer.prepare(g); })
    return measurer.prepare(g);
  else
    return detail::Unprepared<M, Set>{&measurer, &g};
}

}  // namespace autograph
