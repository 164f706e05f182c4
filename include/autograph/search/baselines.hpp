#pragma once
// The systems AutoGraph is compared with, as configurations of this one library, run side by
// side on one graph and one (simulated) device:
//
//   sequential   no rewrite, one stream
//   nimble       no rewrite, Nimble's multi-stream assignment
//   taso         SumCost, relaxed (α = 1.05) backtracking over the whole graph, one stream
//   taso+nimble  TASO's graph, Nimble's streams
//   metaflow     flow partition + DP with SumCost, one stream
//   autograph    MixedCriticalPath<0.25>, flow partition + DP, measured top-k rounds, Nimble streams
//
// TASO and MetaFlow search one rewrite at a time, as published (no combining of independent
// rewrites, no measured rule attribution: those are AutoGraph-side additions of ours).
//
// Every optimized graph is checked against the original on the reference executor (random
// weights and inputs) before it is reported; a mismatch is a failure, never a result.
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "autograph/graph/stats.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/runtime/reference_executor.hpp"
#include "autograph/runtime/simulated_runtime.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/sequential.hpp"
#include "autograph/search/optimizer.hpp"
#include "autograph/search/verification.hpp"

namespace autograph {

template <class Set = BuiltinOps>
struct BaselineResult {
  std::string name;
  double latency_ms = 0;
  double search_seconds = 0;
  std::size_t operators = 0;
  std::map<std::string, std::size_t> rewrites;
  std::string stop_reason;
  Verification verification;
  Graph<Set> graph;                    // the graph this configuration runs
  std::vector<std::string> left_out;   // rules the search measured slower and left out
};

struct BaselineOptions {
  std::vector<std::string> configurations{"sequential", "nimble", "taso", "taso+nimble", "metaflow", "autograph"};
  bool verify = true;
  double tolerance = 1e-3;        // relative, float32 reassociation
  std::uint64_t seed = 1;
  double time_limit_s = 60;       // per optimizing configuration
  std::function<void(std::string const&)> progress = {};  // called as each configuration starts
  bool search_progress = false;   // searches print rounds on stderr once they run over a second
};

/// Runs the configurations on `g` (whose weights should carry data when verifying: call
/// fill_random_weights first) with the simulated device D. `Rules` is the compile-time rule
/// set; `runtime_rules` adds rules loaded at run time (TASO's collection).
template <Device D, class Rules, class Set>
std::vector<BaselineResult<Set>> run_baselines(Graph<Set> const& g, BaselineOptions const& opt = {},
                                          std::vector<rules::TasoRule<Set>> const& runtime_rules = {}) {
  using SeqRuntime = SimulatedRuntime<D, schedule::Sequential>;
  using NimbleRuntime = SimulatedRuntime<D, schedule::Nimble>;
  using Engine = rules::RuleEngine<Set, Rules>;
  std::vector<BaselineResult<Set>> out;
  std::map<std::string, Graph<Set>> graphs;
  SeqRuntime seq;
  NimbleRuntime nimble;

  auto wants = [&](std::string const& c) { return std::ranges::find(opt.configurations, c) != opt.configurations.end(); };
  for (auto const& c : opt.configurations)
    if (c != "sequential" && c != "nimble" && c != "taso" && c != "taso+nimble" && c != "metaflow" && c != "autograph")
      throw Error("unknown configuration '" + c + "' (known: sequential, nimble, taso, taso+nimble, metaflow, autograph)");

  auto record = [&](std::string name, Graph<Set> const& graph, double latency, double seconds, std::map<std::string, std::size_t> rewrites,
                    std::string stop) {
    BaselineResult<Set> r{std::move(name), latency, seconds, graph_stats(graph).operators, std::move(rewrites), std::move(stop), {}, graph, {}};
    if (!opt.verify) r.verification = {false, false, 0.0, "verification off"};
    else if (r.rewrites.empty()) r.verification = {true, true, 0.0, "the input graph itself"};
    else r.verification = verify_equivalent(g, graph, opt.tolerance, opt.seed);
    out.push_back(std::move(r));
  };
  auto start = [&](std::string const& name) {
    if (opt.progress) opt.progress(name);
  };

  if (wants("sequential")) {
    start("sequential");
    record("sequential", g, seq.measure(g), 0, {}, "");
  }
  if (wants("nimble")) {
    start("nimble");
    auto t0 = std::chrono::steady_clock::now();
    double lat = nimble.measure(g);
    record("nimble", g, lat, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), {}, "");
  }
  if (wants("taso") || wants("taso+nimble")) {
    start("taso");
    OptimizerOptions o{.relax = 1.05, .partition = false, .measure_rounds = 0, .time_limit_s = opt.time_limit_s, .progress = opt.search_progress, .combine = false};
    Optimizer<Graph<Set>, Rules, SumCost, SeqRuntime> taso(seq, o, Engine(runtime_rules));
    auto r = taso.optimize(g);
    if (wants("taso")) record("taso", r.graph, r.latency_ms, r.search_seconds, r.rewrites, r.stop_reason);
    if (wants("taso+nimble")) record("taso+nimble", r.graph, nimble.measure(r.graph), r.search_seconds, r.rewrites, r.stop_reason);
  }
  if (wants("metaflow")) {
    start("metaflow");
    // Budgets fixed here (not the optimizer's defaults, tuned for AutoGraph with combining):
    // one rewrite per step needs more steps per chunk and across seams.
    OptimizerOptions o{.relax = 1.05,
                       .partition = true,
                       .chunk_budget = 24,
                       .seam_budget = 12,
                       .measure_rounds = 0,
                       .time_limit_s = opt.time_limit_s,
                       .progress = opt.search_progress,
                       .combine = false};
    Optimizer<Graph<Set>, Rules, SumCost, SeqRuntime> metaflow(seq, o, Engine(runtime_rules));
    auto r = metaflow.optimize(g);
    record("metaflow", r.graph, r.latency_ms, r.search_seconds, r.rewrites, r.stop_reason);
  }
  if (wants("autograph")) {
    start("autograph");
    OptimizerOptions o{.relax = 1.1, .partition = true, .time_limit_s = opt.time_limit_s, .progress = opt.search_progress};
    Optimizer<Graph<Set>, Rules, MixedCriticalPath<0.25>, NimbleRuntime> autograph(nimble, o, Engine(runtime_rules));
    auto r = autograph.optimize(g);
    record("autograph", r.graph, r.latency_ms, r.search_seconds, r.rewrites, r.stop_reason);
    out.back().left_out = r.left_out;
  }
  return out;
}

}  // namespace autograph
