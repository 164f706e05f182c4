#pragma once
// Greedy list scheduling (greedy.hpp) onto one stream per core of the runtime, the kernels
// timed by the runtime's own cost model: nothing is run to schedule a graph.
//
// Why a stream per core: on a CPU a stream is a thread, and streams beyond the cores take
// turns on them. Nimble's streams follow the graph's width (13 on NASNet-A Mobile, 15 on
// RandWire-WS), and on the 2-core Zen 3 VM their threads spent 10% of a run's samples yielding
// to each other and 6% switching (perf, 2026-11-29); two streams that each keep a core busy
// have nothing to hand over. Measured side by side in `benchmark/cpu_schedules.cpp`.
//
// Why estimated times: a schedule is made for every graph a search measures, and timing each
// kernel alone (Greedy) took 1.6-1.8 s on NASNet-A Mobile. List scheduling needs only the
// order of the kernels' remaining paths and which stream frees first, which the estimates keep
// well enough for the measured result to decide (the runtime races this schedule against one
// stream: cpu/runtime.hpp, FasterOf).
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "autograph/cost/graph_cost.hpp"
#include "autograph/schedule/greedy.hpp"

namespace autograph::schedule {

/// A runtime that says how many cores it runs on and how long it expects each kernel to take.
template <class R>
concept CoreCountingRuntime = requires(R const& r) {
  { r.cores() } -> std::convertible_to<int>;
  r.cost_model();
};

/// Each kernel's time in ms by `model` (indexed by kernel of `dag`).
template <class Set, OpCostModel M>
std::vector<double> estimated_kernel_times_ms(Graph<Set> const& g, KernelDag const& dag, M const& model) {
  NodeCosts<Set> costs = node_costs(g, model);
  std::vector<double> ms(dag.size());
  for (std::size_t k = 0; k < dag.size(); ++k) ms[k] = costs.us[dag.node(k)] / 1000;
  return ms;
}

struct GreedyPerCore {
  static constexpr std::string_view name = "greedy-per-core";

  template <class Set, CoreCountingRuntime R>
  ScheduledGraph<Set> operator()(Graph<Set> const& g, R& runtime) const {
    auto t0 = std::chrono::steady_clock::now();
    KernelDag dag(g);
    Schedule s = greedy(dag, estimated_kernel_times_ms(g, dag, runtime.cost_model()), static_cast<std::size_t>(std::max(1, runtime.cores())));
    return {g, std::move(s), std::string(name), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  }
};

}  // namespace autograph::schedule
