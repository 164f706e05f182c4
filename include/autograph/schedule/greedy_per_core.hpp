#pragma once
// Greedy list scheduling (greedy.hpp) onto one stream per core of the runtime, the kernels
// timed by the runtime itself where it can (KernelTimingRuntime: the CPU runtime times each
// kernel signature once), else estimated by its cost model.
//
// Why a stream per core: on a CPU a stream is a thread, and streams beyond the cores take
// turns on them. Nimble's streams follow the graph's width (13 on NASNet-A Mobile, 15 on
// RandWire-WS), and on the 2-core Zen 3 VM their threads spent 10% of a run's samples yielding
// to each other and 6% switching (perf, 2026-11-29); two streams that each keep a core busy
// have nothing to hand over. Measured side by side in `benchmark/cpu_schedules.cpp`.
//
// Why times kept by signature: a schedule is made for every graph a search measures, and
// timing each kernel of each graph alone (Greedy) took 1.6-1.8 s on NASNet-A Mobile; a
// candidate shares most of its kernels' signatures with the graph it was rewritten from. The
// roofline's estimates keep the order of the kernels' remaining paths less well: on NASNet-A
// Mobile they ran x1.40-1.69 over one stream, timed kernels x1.66-1.96 (cpu/runtime.hpp,
// CpuRuntimeOptions::time_kernels). The runtime races the schedule against one stream
// (cpu/runtime.hpp, FasterOf), so neither has to be right alone.
#include <algorithm>
#include <chrono>
#include <concepts>
#include <string>
#include <vector>

#include "autograph/cost/graph_cost.hpp"
#include "autograph/schedule/greedy.hpp"

namespace autograph::schedule {

/// A runtime that says how many cores it runs on and how long it expects each kernel to take.
template <class R>
concept CoreCountingRuntime = requires(R const& r) {
  { r.cores() } -> std::convertible_to<int>;
  requires OpCostModel<std::remove_cvref_t<decltype(r.cost_model())>>;
};

/// A runtime that times the kernels of a graph itself (indexed by kernel of `dag`, in ms).
template <class R, class Set>
concept KernelTimingRuntime = requires(R& r, Graph<Set> const& g, KernelDag const& dag) {
  { r.kernel_times_ms(g, dag) } -> std::same_as<std::vector<double>>;
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
    std::vector<double> ms;
    if constexpr (KernelTimingRuntime<R, Set>)
      ms = runtime.kernel_times_ms(g, dag);
    else
      ms = estimated_kernel_times_ms(g, dag, runtime.cost_model());
    Schedule s = greedy(dag, ms, static_cast<std::size_t>(std::max(1, runtime.cores())));
    return {g, std::move(s), std::string(name), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  }
};

}  // namespace autograph::schedule
