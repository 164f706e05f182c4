#pragma once
// AutoGTCO's graph level on this machine (issue 18): DPOF (fusion/fuse.hpp) over the groups of
// rules::TransformerFusion (fused attention, matmul + bias + GELU, residual add + LayerNorm),
// each group's cost measured on the CPU runtime, fused and unfused (fusion::MeasuredGroupCost).
// The CPU runtime's fused attention runs the tuning log set by cpu::tuned::use_tuning_log(), so
// set it first: the groups are then timed, and chosen, with the kernels that will run.
//
// cpu::run_baselines() runs it before AutoGraph's search when asked (cpu/baselines.hpp);
// `autograph optimize --runtime cpu --transformer-fusion` is the user's path. Compiled once in
// the autograph_cpu library (src/cpu/transformer_fusion.cpp).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "autograph/graph/graph.hpp"
#include "autograph/ops/builtin.hpp"

namespace autograph::cpu {

struct TransformerFusionOptions {
  double group_budget_ms = 20;    // timed runs per group measurement, at least 5 (a group runs in microseconds to milliseconds)
  std::uint64_t weight_seed = 1;  // random data for the groups' shape-only weights and inputs
};

struct TransformerFusionResult {
  Graph<BuiltinOps> graph;                          // DPOF's choice applied
  std::map<std::string, std::size_t> applications;  // per rule, the groups fused (rules that fused none are absent)
  std::size_t rounds = 0;                           // DPOF rounds that fused something
  std::size_t groups_measured = 0;                  // distinct groups timed (the rest answered from the memo)
  double seconds = 0;                               // the whole fusion: finding, measuring, the DP, rewriting
  double measuring_seconds = 0;                     // of which timing groups on the CPU
};

/// DPOF's fused graph of `g`, every group's cost measured on this machine's CPU runtime.
TransformerFusionResult fuse_transformer(Graph<BuiltinOps> const& g, TransformerFusionOptions const& o = {});

}  // namespace autograph::cpu
