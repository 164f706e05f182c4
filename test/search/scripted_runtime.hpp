#pragma once
// A runtime for the optimizer's tests of measuring runtimes (optimizer_noise_test,
// optimizer_screening_test, optimizer_deadline_test, optimizer_paired_screening_test): latency = the graph's node count, with
// what a real measuring runtime adds scripted per test: comparisons that find only noise,
// candidates that fail to run, measurements that take time, the bounds it was screened
// against and the deadlines it was told.
//
// One type for all three files, and its Optimizer compiled once (scripted_optimizer.cpp,
// `extern template` below): each file instantiating an Optimizer for its own runtime took
// 10-13 s to compile on the project's 2-core machine.
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "autograph/cost/roofline.hpp"
#include "autograph/rules/library/fusion.hpp"
#include "autograph/search/optimizer.hpp"

namespace autograph::toy {

struct ScriptedRuntime {
  using Clock = std::chrono::steady_clock;
  enum class Script { real_gains, only_noise, candidates_fail };

  /// What the runtime saw; shared by its copies (the optimizer keeps a copy).
  struct Log {
    int measures = 0;                // measure() and screen() calls
    std::vector<double> bounds;      // screen()'s bounds, in order
    int deadlines_set = 0;           // set_deadline() calls
    Clock::time_point first_deadline{};
    Clock::time_point deadline = Clock::time_point::max();
  };

  Script script = Script::real_gains;
  std::chrono::milliseconds per_measurement{0};  // each measure(), screen() and compare() sleeps this long
  std::shared_ptr<Log> log = std::make_shared<Log>();
  RooflineCost cost{devices::H100::spec};

  double measure(Graph<> const& g) {
    std::this_thread::sleep_for(per_measurement);
    bool input = log->measures++ == 0;  // the optimizer measures its input first
    if (script == Script::candidates_fail && !input)
      throw ExecutionError("Conv2D 'c1': unsupported on the scripted runtime: a fused activation");
    return static_cast<double>(g.num_nodes());
  }
  double screen(Graph<> const& g, double bound_ms) {
    log->bounds.push_back(bound_ms);
    return measure(g);
  }
  Comparison compare(Graph<> const& incumbent, Graph<> const& challenger) {
    std::this_thread::sleep_for(per_measurement);
    double a = static_cast<double>(incumbent.num_nodes()), b = static_cast<double>(challenger.num_nodes());
    return {a, b, 0.0, script != Script::only_noise && b < a, 5};
  }
  void set_deadline(Clock::time_point t) {
    if (log->deadlines_set++ == 0) log->first_deadline = t;
    log->deadline = t;
  }
  std::string kind() const { return "scripted"; }
  RooflineCost const& cost_model() const { return cost; }
};
static_assert(ComparingRuntime<ScriptedRuntime> && ScreeningRuntime<ScriptedRuntime> && DeadlineRuntime<ScriptedRuntime>);

/// The optimizer the three files test: fuse-conv-relu, cost = operator count.
using ScriptedOptimizer = Optimizer<Graph<>, rules::Rules<rules::FuseConvRelu>, SumCost, ScriptedRuntime>;

/// ScriptedRuntime whose comparisons also screen (PairedScreeningRuntime), as CpuRuntime's do:
/// the optimizer measures each candidate paired with the best graph so far
/// (optimizer_paired_screening_test). It logs every comparison.
struct PairedScriptedRuntime : ScriptedRuntime {
  struct Compared {
    std::size_t incumbent_nodes, challenger_nodes;
    bool screen;
  };
  std::shared_ptr<std::vector<Compared>> compared = std::make_shared<std::vector<Compared>>();
  /// When set, fusing makes a graph slower (latency 100 - nodes, where the cost policy counts
  /// fewer nodes cheaper), and a graph timed alone runs in a slow stretch of the machine (twice
  /// as long) while paired runs see its usual speed: the input's latency, timed alone first, is
  /// then no figure to set a candidate's paired latency beside.
  bool fusion_slows_after_a_slow_start = false;

  double truth(Graph<> const& g) const { return 100.0 - static_cast<double>(g.num_nodes()); }
  double measure(Graph<> const& g) {
    double nodes = ScriptedRuntime::measure(g);
    return fusion_slows_after_a_slow_start ? 2 * truth(g) : nodes;
  }
  Comparison compare(Graph<> const& incumbent, Graph<> const& challenger) {
    if (!fusion_slows_after_a_slow_start) return ScriptedRuntime::compare(incumbent, challenger);
    double a = truth(incumbent), b = truth(challenger);
    return {a, b, 0.0, b < a, 5};
  }
  Comparison compare(Graph<> const& incumbent, Graph<> const& challenger, CompareOptions options) {
    compared->push_back({incumbent.num_nodes(), challenger.num_nodes(), options.screen});
    if (script == Script::candidates_fail && challenger.num_nodes() < incumbent.num_nodes())
      throw ExecutionError("Conv2D 'c1': unsupported on the scripted runtime: a fused activation");
    return compare(incumbent, challenger);
  }
};
static_assert(PairedScreeningRuntime<PairedScriptedRuntime> && !PairedScreeningRuntime<ScriptedRuntime>);

using PairedScriptedOptimizer = Optimizer<Graph<>, rules::Rules<rules::FuseConvRelu>, SumCost, PairedScriptedRuntime>;

}  // namespace autograph::toy

extern template class autograph::Optimizer<autograph::Graph<>, autograph::rules::Rules<autograph::rules::FuseConvRelu>, autograph::SumCost,
                                           autograph::toy::ScriptedRuntime>;  // scripted_optimizer.cpp
extern template class autograph::Optimizer<autograph::Graph<>, autograph::rules::Rules<autograph::rules::FuseConvRelu>, autograph::SumCost,
                                           autograph::toy::PairedScriptedRuntime>;  // scripted_optimizer.cpp
