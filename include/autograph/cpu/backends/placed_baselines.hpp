#pragma once
// AutoGraph and the backend placement together, measured on this machine (issue 17): the
// optimizer's search on PlacingCpuRuntime<AllBackends>, so every candidate graph it measures is
// placed on oneDNN, OpenBLAS's im2col path and our own kernels by the op-level DP first. Two
// configurations, for `autograph optimize --backends` next to the oneDNN-only ones of
// cpu/baselines.hpp:
//
//   placement            the input graph, placed (no rewrite)
//   autograph+placement  AutoGraph's search, every candidate measured placed
//
// The Optimizer over this runtime is compiled once in autograph_cpu (src/cpu/placed_baselines.cpp).
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "autograph/cpu/backends/blas.hpp"
#include "autograph/cpu/backends/onednn.hpp"
#include "autograph/cpu/backends/own_kernels.hpp"
#include "autograph/cpu/backends/placing_runtime.hpp"
#include "autograph/experiments/baselines.hpp"

namespace autograph::cpu {

/// The CPU backends this library ships, in the order the placement lists them.
using AllBackends = Backends<backends::OneDnn, backends::Blas, backends::OwnKernels>;

#if defined(AUTOGRAPH_CPU_PRECOMPILED)
// The op-level placement on AllBackends and its placed graphs, compiled once
// (src/cpu/placed_baselines.cpp): place_test.cpp took 8.75 s of CPU with them, 7.35 s without.
extern template PlacedGraph place(AllBackends, Graph<BuiltinOps> const&, CpuRuntime&, placement::CostDatabase&, PlaceOptions const&);
extern template Graph<PlacedOps> placed_graph(AllBackends, Graph<BuiltinOps> const&, placement::Placement const&,
    std::vector<std::string>*);
}  // namespace autograph::cpu
namespace autograph {
extern template class Optimizer<Graph<BuiltinOps>, rules::Default, MixedCriticalPath<0.25>, cpu::PlacingCpuRuntime<cpu::AllBackends>>;
}  // namespace autograph
namespace autograph::cpu {
#endif

/// What run_placed_baselines measured beyond the results.
struct PlacedBaselineReport {
  double measuring_seconds = 0;                  // measuring whole graphs and groups
  double placing_seconds = 0;                    // generating candidates and the DP, over every graph placed
  std::size_t graphs_placed = 0;                 // distinct graphs the search placed
  std::size_t groups_measured = 0;               // groups the cost database did not know
  std::size_t database_entries = 0;              // groups the database knows for this device, after the run
  std::vector<std::string> placement_backends;   // by node id of results[0].graph: the backend running it
  std::vector<std::string> autograph_backends;   // by node id of results[1].graph
  CpuPlan<PlacedOps> autograph_plan;             // the schedule AutoGraph's placed graph runs with
};

/// "onednn 40, own 12": operator nodes per backend, from a by-node list of backend names (a
/// report's placement_backends or autograph_backends; "" for a node no backend runs); "-" when
/// none. How `optimize --backends` and the CPU benchmark's notes say who runs what.
inline std::string nodes_per_backend(std::vector<std::string> const& by_node) {
  std::map<std::string, std::size_t> n;
  for (auto const& b : by_node)
    if (!b.empty()) ++n[b];
  std::string s;
  for (auto const& [b, k] : n) s += (s.empty() ? "" : ", ") + b + " " + std::to_string(k);
  return s.empty() ? "-" : s;
}

/// The two configurations above on `g` (weights with data when verifying), results in that
/// order. `opt.configurations` is not read; its verification, seed and time limit are.
/// @throws Error for an unknown backend name in `placing.backends` (naming the known ones).
std::vector<BaselineResult<BuiltinOps>> run_placed_baselines(Graph<BuiltinOps> const& g, BaselineOptions const& opt, CpuRuntimeOptions const& runtime,
                                                             PlacingOptions const& placing,
                                                             std::vector<rules::TasoRule<BuiltinOps>> const& runtime_rules = {},
                                                             PlacedBaselineReport* report = nullptr);

}  // namespace autograph::cpu
