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
//
// These are experiments (the papers' comparisons), not part of the search: they sit above
// search/, schedule/ and runtime/ and nothing in the library depends on them.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "autograph/graph/stats.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/rules/default_engine.hpp"
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
  std::vector<RuleStats> rule_stats;   // per rule: matches, rewrites, applications, time (searching configurations)
  double verify_seconds = 0;           // checking `graph` on the reference executor
  // Everything run_baselines spent on this configuration: its search (or measurement), setup,
  // and verification. A search shared by taso and taso+nimble counts under the first recorded,
  // so the results' `seconds` add up to the time run_baselines took.
  double seconds = 0;
};

struct BaselineOptions {
  std::vector<std::string> configurations{"sequential", "nimble", "taso", "taso+nimble", "metaflow", "autograph"};
  bool verify = true;
  double tolerance = 1e-3;        // relative, float32 reassociation
  std::uint64_t seed = 1;
  double time_limit_s = 60;       // per optimizing configuration
  std::function<void(std::string const&)> progress = {};  // called as each configuration starts
  bool search_progress = false;   // searches print rounds on stderr once they run over a second
  // Called before a configuration's graph is verified (two runs of the reference executor: on
  // a large model the slowest part of a configuration after its search).
  std::function<void(std::string const&)> verify_progress = {};
};

/// Every configuration of `opt` on `g` (whose weights should carry data when verifying: call
/// fill_random_weights first). `Rules` is the compile-time rule set; `runtime_rules` adds
/// rules loaded at run time (TASO's collection). Measured (or simulated) by `seq` (one stream: the
/// sequential baseline and the searches that assume it, TASO and MetaFlow) and `nimble`
/// (multi-stream: Nimble, TASO+Nimble and AutoGraph). run_baselines() runs it on a simulated
/// device; the CPU runtime runs it on this machine (cpu/baselines.hpp).
template <class Rules, class Set, class SeqRuntime, class NimbleRuntime>
std::vector<BaselineResult<Set>> run_baselines_on(SeqRuntime& seq, NimbleRuntime& nimble, Graph<Set> const& g, BaselineOptions const& opt = {},
                                                  std::vector<rules::TasoRule<Set>> const& runtime_rules = {}) {
  using Engine = rules::RuleEngine<Set, Rules>;
  std::vector<BaselineResult<Set>> out;
  std::map<std::string, Graph<Set>> graphs;

  auto wants = [&](std::string const& c) { return std::ranges::find(opt.configurations, c) != opt.configurations.end(); };
  BaselineOptions const defaults;  // which run every configuration
  auto const& known = defaults.configurations;
  auto known_list = [&] {
    std::string list;
    for (auto const& k : known) list += (list.empty() ? "" : ", ") + k;
    return list;
  };
  if (opt.configurations.empty()) throw Error("no configuration to run (known: " + known_list() + ")");
  for (auto const& c : opt.configurations)
    if (std::ranges::find(known, c) == known.end()) throw Error("unknown configuration '" + c + "' (known: " + known_list() + ")");

  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  auto started = Clock::now();  // of the configuration (or shared search) not yet recorded
  auto record = [&](std::string name, Graph<Set> const& graph, double latency, double search_seconds,
                    std::map<std::string, std::size_t> rewrites, std::string stop) {
    // Field by field: a braced initializer of every member made GCC 12 -O3 warn
    // (-Wmaybe-uninitialized, a false positive on the copied Graph).
    BaselineResult<Set> r;
    r.name = std::move(name);
    r.latency_ms = latency;
    r.search_seconds = search_seconds;
    // Counted directly: graph_stats() would also compute the graph's width (a max antichain,
    // quadratic), which took 88 s on a 20,000-op chain.
    r.operators = static_cast<std::size_t>(std::ranges::count_if(graph.node_ids(), [&](NodeId id) { return is_operator_node(graph, id); }));
    r.rewrites = std::move(rewrites);
    r.stop_reason = std::move(stop);
    r.graph = graph;
    auto verify_start = Clock::now();
    if (!opt.verify) {
      r.verification.why = "verification off";
    } else if (r.rewrites.empty()) {
      r.verification.ran = r.verification.passed = true;
      r.verification.why = "the input graph itself";
    } else {
      if (opt.verify_progress) opt.verify_progress(r.name);
      r.verification = verify_equivalent(g, graph, opt.tolerance, opt.seed);
    }
    r.verify_seconds = since(verify_start);
    r.seconds = since(started);
    started = Clock::now();
    out.push_back(std::move(r));
  };
  auto start = [&](std::string const& name) {
    if (opt.progress) opt.progress(name);
    started = Clock::now();
  };

  if (wants("sequential")) {
    start("sequential");
    record("sequential", g, seq.measure(g), 0, {}, "");
  }
  if (wants("nimble")) {
    start("nimble");
    double lat = nimble.measure(g);
    record("nimble", g, lat, since(started), {}, "");
  }
  if (wants("taso") || wants("taso+nimble")) {
    start("taso");
    OptimizerOptions o{.relax = 1.05, .partition = false, .measure_rounds = 0, .time_limit_s = opt.time_limit_s, .progress = opt.search_progress, .combine = false};
    Optimizer<Graph<Set>, Rules, SumCost, SeqRuntime> taso(seq, o, Engine(runtime_rules));
    auto r = taso.optimize(g);
    if (wants("taso")) {
      record("taso", r.graph, r.latency_ms, r.search_seconds, r.rewrites, r.stop.describe());
      out.back().rule_stats = r.rule_stats;
    }
    if (wants("taso+nimble")) {
      record("taso+nimble", r.graph, nimble.measure(r.graph), r.search_seconds, r.rewrites, r.stop.describe());
      out.back().rule_stats = r.rule_stats;
    }
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
    record("metaflow", r.graph, r.latency_ms, r.search_seconds, r.rewrites, r.stop.describe());
    out.back().rule_stats = r.rule_stats;
  }
  if (wants("autograph")) {
    start("autograph");
    OptimizerOptions o{.relax = 1.1, .partition = true, .time_limit_s = opt.time_limit_s, .progress = opt.search_progress};
    Optimizer<Graph<Set>, Rules, MixedCriticalPath<0.25>, NimbleRuntime> autograph(nimble, o, Engine(runtime_rules));
    auto r = autograph.optimize(g);
    record("autograph", r.graph, r.latency_ms, r.search_seconds, r.rewrites, r.stop.describe());
    out.back().left_out = r.left_out;
    out.back().rule_stats = r.rule_stats;
  }
  return out;
}

/// run_baselines_on() on the simulated `device`.
template <class Rules, class Set>
std::vector<BaselineResult<Set>> run_baselines(DeviceSpec const& device, Graph<Set> const& g, BaselineOptions const& opt = {},
                                               std::vector<rules::TasoRule<Set>> const& runtime_rules = {}) {
  SimulatedRuntime<devices::AtRunTime, schedule::Sequential> seq(device);
  SimulatedRuntime<devices::AtRunTime, schedule::Nimble> nimble(device);
  return run_baselines_on<Rules>(seq, nimble, g, opt, runtime_rules);
}
/// run_baselines_on() on the simulated device type D.
template <Device D, class Rules, class Set>
std::vector<BaselineResult<Set>> run_baselines(Graph<Set> const& g, BaselineOptions const& opt = {},
                                               std::vector<rules::TasoRule<Set>> const& runtime_rules = {}) {
  return run_baselines<Rules>(D::spec, g, opt, runtime_rules);
}

#if defined(AUTOGRAPH_PRECOMPILED)
// The default configurations, compiled once in src/defaults/baselines.cpp for programs that
// link autograph::defaults: on a device given at run time (every device shares them) and on
// the default device type, H100, which the tests and examples construct directly.
#define AUTOGRAPH_DEFAULT_BASELINES(D)                                                                                                   \
  extern template class Optimizer<Graph<BuiltinOps>, rules::Default, SumCost, SimulatedRuntime<D, schedule::Sequential>>;               \
  extern template class Optimizer<Graph<BuiltinOps>, rules::Default, MixedCriticalPath<0.25>, SimulatedRuntime<D, schedule::Nimble>>;
AUTOGRAPH_DEFAULT_BASELINES(devices::AtRunTime)
AUTOGRAPH_DEFAULT_BASELINES(devices::H100)
#undef AUTOGRAPH_DEFAULT_BASELINES
extern template std::vector<BaselineResult<BuiltinOps>> run_baselines<rules::Default, BuiltinOps>(
    DeviceSpec const&, Graph<BuiltinOps> const&, BaselineOptions const&, std::vector<rules::TasoRule<BuiltinOps>> const&);
extern template Verification verify_equivalent<BuiltinOps>(Graph<BuiltinOps> const&, Graph<BuiltinOps> const&, double, std::uint64_t);
#endif

}  // namespace autograph
