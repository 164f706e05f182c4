#pragma once
// The baseline configurations (experiments/baselines.hpp: sequential, Nimble, TASO,
// TASO+Nimble, MetaFlow, AutoGraph) measured on this machine's cores: every latency a search
// compares, and every latency reported, is a median of runs on the CPU runtime. Sequential,
// TASO and MetaFlow run on one stream, Nimble and TASO+Nimble on Nimble's streams, AutoGraph
// on CpuRuntime, whose plan is the measured faster of a stream per core (GreedyPerCore) and one
// stream (FasterOf). Compiled once in the autograph_cpu library (src/cpu/baselines.cpp).
//
// With `fusion` given, AutoGraph's configuration first fuses the transformer's operator groups
// by DPOF on measured costs (cpu/transformer_fusion.hpp), then searches from the fused graph;
// its result is verified against the unfused model, normwise within min(tolerance, 1e-4)
// (issue 18: every fused graph gives the reference executor's outputs within 1e-4).
#include <optional>
#include <vector>

#include "autograph/cpu/runtime.hpp"
#include "autograph/cpu/transformer_fusion.hpp"
#include "autograph/experiments/baselines.hpp"

namespace autograph::cpu {

/// What run_baselines measured beyond the results.
struct CpuBaselineReport {
  double measuring_seconds = 0;                        // wall seconds spent measuring (part of each configuration's time)
  ScheduleChoiceStats schedule_choice;                 // AutoGraph's runtime choosing schedules: graphs raced or inherited, the losing
                                                       // schedule's runs and seconds (part of measuring_seconds)
  std::optional<CpuPlan<BuiltinOps>> autograph_plan;  // the schedule AutoGraph's graph runs with, and the medians that chose it
  std::optional<TransformerFusionResult> fusion;       // what DPOF fused before AutoGraph's search (its `graph` left empty)
};

/// The tolerance a fused graph is verified with: the normwise 1e-4, or tighter.
inline constexpr double fused_graph_tolerance = 1e-4;

std::vector<BaselineResult<BuiltinOps>> run_baselines(Graph<BuiltinOps> const& g, BaselineOptions const& opt, CpuRuntimeOptions const& runtime,
                                                      std::vector<rules::TasoRule<BuiltinOps>> const& runtime_rules = {},
                                                      CpuBaselineReport* report = nullptr,
                                                      std::optional<TransformerFusionOptions> const& fusion = std::nullopt);

}  // namespace autograph::cpu
