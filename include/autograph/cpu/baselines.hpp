#pragma once
// The baseline configurations (experiments/baselines.hpp: sequential, Nimble, TASO,
// TASO+Nimble, MetaFlow, AutoGraph) measured on this machine's cores: every latency a search
// compares, and every latency reported, is a median of runs on the CPU runtime. Compiled once
// in the autograph_cpu library (src/cpu/baselines.cpp).
#include <vector>

#include "autograph/cpu/runtime.hpp"
#include "autograph/experiments/baselines.hpp"

namespace autograph::cpu {

/// `measuring_seconds`, when given, receives the wall seconds spent measuring on the CPU
/// (part of each configuration's search and latency time).
std::vector<BaselineResult<BuiltinOps>> run_baselines(Graph<BuiltinOps> const& g, BaselineOptions const& opt, CpuRuntimeOptions const& runtime,
                                                      std::vector<rules::TasoRule<BuiltinOps>> const& runtime_rules = {},
                                                      double* measuring_seconds = nullptr);

}  // namespace autograph::cpu
