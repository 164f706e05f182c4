#pragma once
// The CPU device model for the simulator, calibrated from a profile: host_device_spec() (this
// machine's peaks, nothing fitted) with its free roofline parameters fitted (cost/roofline_fit.hpp)
// to the per-kernel times cpu::profile() measured. Kernel times only: whole-graph latencies
// are what the model is judged by (benchmark/cpu_rank.cpp), never what it is fitted to.
//
//   auto prof = cpu::profile(std::span<Graph<> const>(graphs), cpu);
//   RooflineFit fit = cpu::calibrate_host_device(prof, std::span<Graph<> const>(graphs));
//   SimulatedRuntime<cpu::SimulatedHost, schedule::Nimble, RooflineCost> sim(RooflineCost(fit.device));
//   sim.measure(g, schedule);          // simulated ms on this CPU
//
// What the roofline cannot learn from single kernels stays unfitted: a run's fixed cost
// (graph_launch_us) and a cross-stream wait (event_us) are 0, and concurrent kernels share the
// cores by their fill as the simulator shares SMs.
#include <map>
#include <span>
#include <string>
#include <vector>

#include "autograph/cost/inference_kernels.hpp"
#include "autograph/cost/measured_cost.hpp"
#include "autograph/cost/roofline_fit.hpp"
#include "autograph/cpu/profiler.hpp"
#include "autograph/cpu/runtime.hpp"
#include "autograph/graph/stats.hpp"
#include "autograph/runtime/simulated_runtime.hpp"

namespace autograph::cpu {

/// The Device a SimulatedRuntime of this CPU runs with: the kernels' costs come from the cost
/// model it is given (RooflineCost of a calibrated or host_device_spec() device, or
/// MeasuredCost); this spec carries only what the simulator adds per run and per cross-stream
/// wait, which a profile of single kernels cannot tell, so none (0), and no memory limit.
struct SimulatedHost {
  static constexpr DeviceSpec spec{"CPU", "cpu"};
};

/// The profile's kernel times with what the roofline needs of each kernel (its op, input and
/// output descriptors), taken from a node of `graphs` with the entry's signature; each
/// weighted by its occurrences.
/// @throws Error naming a profiled signature that no kernel of `graphs` has (the profile is of
///         other graphs).
template <class Set>
std::vector<KernelTime> profile_kernel_times(ProfileResult const& p, std::span<Graph<Set> const> graphs) {
  std::map<std::string, std::size_t, std::less<>> wanted;
  for (std::size_t i = 0; i < p.entries.size(); ++i) wanted.emplace(p.entries[i].signature, i);
  std::vector<KernelTime> times(p.entries.size());
  std::vector<bool> found(p.entries.size(), false);
  for (auto const& g : graphs) {
    auto kernel = kernel_mask(g);
    for (NodeId id : g.node_ids()) {
      if (!kernel[id]) continue;
      auto in = input_descs(g, id);
      auto it = wanted.find(op_signature(g[id].op, in));
      if (it == wanted.end() || found[it->second]) continue;
      auto const& e = p.entries[it->second];
      times[it->second] = {g[id].op, std::move(in), g[id].outputs, e.us, static_cast<double>(std::max<std::size_t>(e.occurrences, 1)), e.signature};
      found[it->second] = true;
    }
  }
  for (std::size_t i = 0; i < found.size(); ++i)
    if (!found[i]) throw Error("calibration: profiled kernel '" + p.entries[i].signature + "' is in none of the " + std::to_string(graphs.size()) +
                               " graphs given: pass the graphs the profile was taken of");
  return times;
}

/// The roofline of `base` fitted to the profile's kernel times: calibrate_host_device with the
/// starting device given (its peaks, name and cores) instead of measured on this machine, so
/// that the same profile fits the same way wherever it runs (a test beside other work or under
/// a sanitizer measures other peaks).
/// @throws Error as profile_kernel_times() and fit_roofline() do.
template <class Set>
RooflineFit calibrate_device(DeviceSpec const& base, ProfileResult const& p, std::span<Graph<Set> const> graphs, RooflineFitOptions const& o = {}) {
  return fit_roofline(base, profile_kernel_times(p, graphs), o);
}

/// This machine's roofline (host_device_spec(p.cores)) fitted to the profile's kernel times.
/// The fitted device is named like the profile's table (cpu_model_name()), so MeasuredCost can
/// use it as the fallback for a table of the same machine.
/// @throws Error as profile_kernel_times() and fit_roofline() do (too few kernels, times not finite).
template <class Set>
RooflineFit calibrate_host_device(ProfileResult const& p, std::span<Graph<Set> const> graphs, RooflineFitOptions const& o = {}) {
  if (p.cores < 1) throw Error("calibration: the profile says it ran on " + std::to_string(p.cores) + " cores");
  return calibrate_device(host_device_spec(p.cores), p, graphs, o);
}

}  // namespace autograph::cpu
