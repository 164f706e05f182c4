#pragma once
// CpuRuntime: the Runtime concept (runtime/runtime.hpp) on this machine's cores, measured.
// measure() lowers a graph, prepares its schedule (kernels through oneDNN, one arena, one
// thread per stream), runs it `warmup` times, then times 50 runs (fewer, at least 5, when a
// time budget runs out first) and reports the median wall-clock latency in ms. The optimizer's on-board verification runs through it:
//
//   cpu::CpuRuntime cpu;
//   Optimizer<Graph<>, rules::Default, MixedCriticalPath<0.25>, cpu::CpuRuntime> opt(..., cpu);
//
// For results, compile(graph, schedule).run(inputs) gives the outputs (tests compare them with
// ReferenceExecutor). Weights without data get reproducible random data when measuring
// (timing does not depend on values); compile() requires real data, like the reference executor.
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/cost/device.hpp"
#include "autograph/cost/measured_cost.hpp"
#include "autograph/cost/roofline.hpp"
#include "autograph/cpu/executable.hpp"
#include "autograph/cpu/lower.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/runtime/noise.hpp"
#include "autograph/runtime/runtime.hpp"
#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/policy.hpp"
#include "autograph/schedule/sequential.hpp"

namespace autograph::cpu {

/// This machine's processor as /proc/cpuinfo names it ("Intel(R) Xeon(R) Platinum 8375C CPU
/// @ 2.90GHz"); "unknown CPU" when it does not say.
inline std::string const& cpu_model_name() {
  static std::string const name = [] {
    std::ifstream info("/proc/cpuinfo");
    for (std::string line; std::getline(info, line);)
      if (line.starts_with("model name")) {
        auto colon = line.find(':');
        if (colon != std::string::npos) {
          auto first = line.find_first_not_of(" \t", colon + 1);
          if (first != std::string::npos) return line.substr(first);
        }
      }
    return std::string("unknown CPU");
  }();
  return name;
}

/// A roofline description of this machine for ranking candidates before measuring them:
/// peak FP32 rate = cores x clock x FP32 flops per cycle per core from the vector units the
/// CPU reports (two FMA pipes of 16 lanes with AVX-512, of 8 with AVX2+FMA, 4-lane SSE
/// otherwise); bandwidth from one timed 64 MiB copy. Both reachable fractions are 1: nothing is
/// fitted. Per-kernel overheads are not modelled (0).
DeviceSpec host_device_spec(int cores);

struct CpuRuntimeOptions {
  int warmup = 3;                 // untimed runs before timing
  int runs = 50;                  // timed runs, at least 50; measure() reports their median
  double budget_ms = 0;           // stop timing once the timed runs sum to this (after at least 5); 0: no limit
  int cores = 0;                  // 0: every core this process may run on
  std::uint64_t weight_seed = 0;  // random data for shape-only weights when measuring
};

/// One lowered graph, ready to time under many schedules (IOS times every stage it
/// considers): lowering, constant folding and the inputs happen once.
class PreparedCpuGraph {
 public:
  PreparedCpuGraph(std::shared_ptr<CpuGraph const> lowered, CpuRuntimeOptions const& options)
      : lowered_(std::move(lowered)), options_(options) {
    for (auto const& in : lowered_->inputs) inputs_.push_back(Tensor::random(in.desc.shape, hash_combine(options_.weight_seed, in.id)));
  }
  /// Milliseconds of every timed run of `s` (possibly partial: the kernels it leaves out count as done).
  std::vector<double> samples(Schedule const& s) {
    CpuExecutable exe(lowered_, s, {.complete = false, .cores = options_.cores});
    exe.write_inputs(inputs_);
    return exe.time(options_.warmup, options_.runs, options_.budget_ms);
  }
  /// The median of samples(s), in ms.
  double measure(Schedule const& s) { return median(samples(s)); }
  std::shared_ptr<CpuGraph const> const& lowered() const { return lowered_; }

 private:
  std::shared_ptr<CpuGraph const> lowered_;
  CpuRuntimeOptions options_;
  std::vector<Tensor> inputs_;
};

/// `Policy` schedules a graph for measure(g): Nimble's streams (CpuRuntime), or one stream
/// with every core per kernel (SequentialCpuRuntime, the baseline).
template <class Policy>
class BasicCpuRuntime {
 public:
  /// @throws Error for options out of range.
  explicit BasicCpuRuntime(CpuRuntimeOptions options = {})
      : options_(options), cores_(options.cores > 0 ? options.cores : available_cores()), cost_(CostTable{}, host_device_spec(cores_)) {
    if (options_.runs < 50) throw Error("CpuRuntime: runs must be at least 50, got " + std::to_string(options_.runs));
    if (options_.warmup < 0) throw Error("CpuRuntime: warmup must be >= 0, got " + std::to_string(options_.warmup));
    if (options_.budget_ms < 0 || !std::isfinite(options_.budget_ms)) throw Error("CpuRuntime: budget_ms must be finite and >= 0");
    options_.cores = cores_;
  }

  /// "measured (CPU, Intel(R) Xeon(R) ..., 2 cores, median of 50 runs)"; it says so when
  /// OpenMP's threads spin between kernels (OMP_WAIT_POLICY not passive), which slows
  /// concurrent streams down (tools/autograph/main.cpp).
  std::string kind() const {
    char const* policy = std::getenv("OMP_WAIT_POLICY");
    bool passive = policy && std::string_view(policy) == "passive";
    return "measured (CPU, " + cpu_model_name() + ", " + std::to_string(cores_) + (cores_ == 1 ? " core" : " cores") + ", median of " +
           std::to_string(options_.runs) + " runs" + (passive ? "" : ", OpenMP threads spin: set OMP_WAIT_POLICY=passive") + ")";
  }
  int cores() const { return cores_; }
  CpuRuntimeOptions const& options() const { return options_; }
  /// The per-kernel cost model a search ranks candidates with before measuring them here:
  /// measured times where set_cost_table() gave them (cpu/profiler.hpp makes such a table),
  /// the roofline of this machine (host_device_spec) for the rest.
  MeasuredCost const& cost_model() const { return cost_; }
  void set_cost_table(CostTable table) { cost_ = MeasuredCost(std::move(table), host_device_spec(cores_)); }

  /// Latency in ms of `g` under the Policy's schedule.
  template <class Set>
  double measure(Graph<Set> const& g) {
    ScheduledGraph<Set> sg = Policy{}(g, *this);
    return measure(sg.graph, sg.schedule);
  }
  /// Latency in ms of running schedule `s` of `g` (possibly only some of its kernels).
  template <class Set>
  double measure(Graph<Set> const& g, Schedule const& s) {
    return prepare(g).measure(s);
  }
  /// Whether `challenger` runs faster than `incumbent` beyond noise (runtime/noise.hpp): both
  /// prepared under the Policy's schedule, then timed in alternating blocks of 5 runs until
  /// each has `runs` samples. A graph that fails to run counts as infinitely slow.
  template <class Set>
  Comparison compare(Graph<Set> const& incumbent, Graph<Set> const& challenger) {
    ScheduledGraph<Set> a = Policy{}(incumbent, *this), b = Policy{}(challenger, *this);
    CpuExecutable ea(lower(a.graph, LowerOptions{.random_weights = options_.weight_seed}), a.schedule, {.cores = cores_});
    CpuExecutable eb(lower(b.graph, LowerOptions{.random_weights = options_.weight_seed}), b.schedule, {.cores = cores_});
    for (auto* e : {&ea, &eb}) {
      std::vector<Tensor> in;
      for (auto const& i : e->graph().inputs) in.push_back(Tensor::random(i.desc.shape, hash_combine(options_.weight_seed, i.id)));
      e->write_inputs(in);
      e->time(options_.warmup, 0);
    }
    std::vector<double> sa, sb;
    while (static_cast<int>(sa.size()) < options_.runs) {
      auto x = ea.time(0, 5), y = eb.time(0, 5);
      sa.insert(sa.end(), x.begin(), x.end());
      sb.insert(sb.end(), y.begin(), y.end());
    }
    return compare_samples(sa, sb);
  }

  /// Lowers `g` once for timing many schedules of it (shape-only weights get random data).
  template <class Set>
  PreparedCpuGraph prepare(Graph<Set> const& g) {
    return PreparedCpuGraph(lower(g, LowerOptions{.random_weights = options_.weight_seed}), options_);
  }
  /// An executable for results: every weight must have data.
  template <class Set>
  CpuExecutable compile(Graph<Set> const& g, Schedule const& s, ExecOptions exec = {}) {
    if (exec.cores == 0) exec.cores = cores_;
    return CpuExecutable(lower(g), s, exec);
  }

 private:
  CpuRuntimeOptions options_;
  int cores_;
  MeasuredCost cost_;
};

using CpuRuntime = BasicCpuRuntime<schedule::Nimble>;
using SequentialCpuRuntime = BasicCpuRuntime<schedule::Sequential>;
static_assert(EstimatingRuntime<CpuRuntime>);

}  // namespace autograph::cpu
