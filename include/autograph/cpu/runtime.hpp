#pragma once
// CpuRuntime: the Runtime concept (runtime/runtime.hpp) on this machine's cores, measured.
// measure() lowers a graph, prepares its schedule (kernels through oneDNN, one arena, one
// thread per stream), runs it `warmup` times, then times up to 50 runs (fewer, at least 5, once
// a time budget runs out or more runs could not change a decision: BasicCpuRuntime) and reports
// the median wall-clock latency in ms. Its schedule is the measured faster of greedy streams,
// one per core (GreedyPerCore), and one stream with every core per kernel (FasterOf). The
// optimizer's on-board verification runs through it:
//
//   cpu::CpuRuntime cpu;
//   Optimizer<Graph<>, rules::Default, MixedCriticalPath<0.25>, cpu::CpuRuntime> opt(..., cpu);
//
// For results, compile(graph, schedule).run(inputs) gives the outputs (tests compare them with
// ReferenceExecutor). Weights without data get reproducible random data when measuring
// (timing does not depend on values); compile() requires real data, like the reference executor.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <unordered_set>
#include <string_view>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/cost/device.hpp"
#include "autograph/cost/measured_cost.hpp"
#include "autograph/cost/roofline.hpp"
#include "autograph/cpu/executable.hpp"
#include "autograph/cpu/lower.hpp"
#include "autograph/cpu/openmp_wait.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/stats.hpp"
#include "autograph/graph/structural_hash.hpp"
#include "autograph/runtime/noise.hpp"
#include "autograph/runtime/runtime.hpp"
#include "autograph/runtime/schedule_race.hpp"
#include "autograph/schedule/detail/kernel_times.hpp"
#include "autograph/schedule/greedy_per_core.hpp"
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
  int runs = 50;                  // timed runs of a measurement (at least 50 may be asked for); measure() reports their median.
                                  // Fewer (at least 5) once over the budget or the deadline, or once more could not change a decision
  double budget_ms = 0;           // stop timing once the timed runs sum to this (after at least 5); 0: no limit
  int cores = 0;                  // 0: every core this process may run on
  std::uint64_t weight_seed = 0;  // random data for shape-only weights when measuring
  bool channels_last = true;      // keep 4-D tensors channels-last between the kernels that take them (LowerOptions)
  // Runs per turn of compare()'s interleaved blocks (A B B A A B ...; the first look after 5
  // runs a side). One: each pair of runs lies a run apart, where this VM's speed moves for
  // seconds at a time, so the pairs' leads vary less than those of blocks of 5 (runs half a
  // second apart on Inception-v3). Measured (2026-11-28, 2-core Zen 3 VM, cpu_rule_gain,
  // two runs each): BatchNorm folding on NASNet-A Mobile decided faster after 12 and 19 runs
  // a side against 45 and 35 with blocks of 5; the input against itself differed by 0.6-3.2%
  // against 1.5-7.0%. Simulated (interleaved_compare on a machine whose speed walks 1% a run):
  // a 5% gain found in 97% of 2,000 trials after 17 runs a side against 88% after 37, equal
  // graphs called faster in 0.15% of them against 0.05% (noise_test has the machine).
  int compare_block = 1;
  // GreedyPerCore's kernel times (schedule/greedy_per_core.hpp) timed on this CPU, each
  // kernel signature alone once (kernel_times_ms), rather than the cost model's estimates.
  // Measured side by side (benchmark/cpu_schedules.cpp, 2-core Zen 3 VM, 2026-11-29, 7 rounds
  // each, against one stream), NASNet-A Mobile: by the roofline's estimates x1.40-1.69 in four
  // runs, every kernel timed (schedule::Greedy) x1.66-1.96 in four, signatures timed once x1.90
  // in one (RandWire-WS and BERT within noise of the estimates there).
  bool time_kernels = true;
  int kernel_runs = 10;  // timed runs per kernel (after one warm-up): the median orders kernels, it decides nothing alone
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

/// A schedule policy of BasicCpuRuntime that measures: each graph is scheduled by `Preferred`
/// and by `Alternative`, and where the two schedules differ they race (race_schedules,
/// runtime/schedule_race.hpp): timed interleaved until one is slower beyond the noise margin,
/// which is dropped, while the other runs on as a single schedule's measurement would. Unlike a
/// search step there is no incumbent to protect: when the race ends unsettled (its run budget
/// spent on a slow graph) the lower median is still the better guess, and keeping `Preferred`
/// instead ran ViT-B/16 22% slower than one stream (253 against 207 ms, 5 runs each).
/// Between set_family(parent) and end_family() a new graph may take its parent's choice
/// without the other schedule being timed (schedule_race.hpp says when, and why it is safe).
/// CpuRuntime is FasterOf<GreedyPerCore, Sequential>: concurrent streams win on branchy models,
/// but on chain-like ones (SqueezeNet, ViT) one kernel with every core beats branches sharing
/// the cores. Streams are a core each rather than Nimble's one per chain: measured side by side
/// (benchmark/cpu_schedules.cpp, 2-core Zen 3 VM, 2026-11-29, 7 interleaved rounds), against one
/// stream, greedy's two streams ran NASNet-A Mobile x1.69, RandWire-WS x1.11 and BERT x1.06, and
/// Nimble's 13, 15 and 25 streams x1.41, x1.01 and x0.90.
template <class Preferred, class Alternative>
struct FasterOf {
  static constexpr std::string_view name = "faster-of";
};

namespace detail {
template <class P>
inline constexpr bool is_faster_of = false;
template <class A, class B>
inline constexpr bool is_faster_of<FasterOf<A, B>> = true;
}  // namespace detail

/// How a runtime runs a graph: the schedule, and for FasterOf the medians that chose it.
template <class Set>
struct CpuPlan {
  ScheduledGraph<Set> scheduled;  // .policy names the chosen schedule ("greedy-per-core", "sequential")
  std::string other;              // the policy not chosen; empty when nothing was chosen (one policy, or one schedule from both)
  double chosen_ms = std::numeric_limits<double>::quiet_NaN();  // medians of the deciding race (NaN: none ran)
  double other_ms = std::numeric_limits<double>::quiet_NaN();   // NaN also when the choice was inherited (the other not timed)
  bool inherited = false;  // the choice of the graph this one was derived from (set_family), not raced
};

/// `Policy` schedules a graph for measure(g): one stream with every core per kernel
/// (SequentialCpuRuntime, the baseline), Nimble's streams (NimbleCpuRuntime), or the measured
/// faster of greedy streams, one per core, and one stream (CpuRuntime, FasterOf).
///
/// Measuring is the search's cost, so runs stop as soon as more could not change a decision:
/// measure() times `runs` runs, or fewer (at least 5) once they sum to `budget_ms`; screen(g, b)
/// also stops once `g` is clearly slower than b (clearly_above); compare() stops its
/// interleaved blocks once the verdict is settled (settled_verdict), and FasterOf's race drops
/// the slower schedule on the same evidence (race_schedules). After set_deadline()'s time each
/// measurement stops at its minimum.
template <class Policy>
class BasicCpuRuntime {
 public:
  using Clock = std::chrono::steady_clock;

  /// @throws Error for options out of range.
  explicit BasicCpuRuntime(CpuRuntimeOptions options = {})
      : options_(options), cores_(options.cores > 0 ? options.cores : available_cores()), cost_(CostTable{}, host_device_spec(cores_)) {
    if (options_.runs < 50) throw Error("CpuRuntime: runs must be at least 50, got " + std::to_string(options_.runs));
    if (options_.warmup < 0) throw Error("CpuRuntime: warmup must be >= 0, got " + std::to_string(options_.warmup));
    if (options_.budget_ms < 0 || !std::isfinite(options_.budget_ms)) throw Error("CpuRuntime: budget_ms must be finite and >= 0");
    if (options_.compare_block < 1) throw Error("CpuRuntime: compare_block must be at least 1, got " + std::to_string(options_.compare_block));
    if (options_.kernel_runs < 1) throw Error("CpuRuntime: kernel_runs must be at least 1, got " + std::to_string(options_.kernel_runs));
    options_.cores = cores_;
  }

  /// "measured (CPU, Intel(R) Xeon(R) ..., 2 cores, median of up to 50 runs)"; it says so when
  /// OpenMP's idle threads spin for milliseconds between kernels, which slows concurrent
  /// streams down (cpu/openmp_wait.hpp).
  std::string kind() const {
    return "measured (CPU, " + cpu_model_name() + ", " + std::to_string(cores_) + (cores_ == 1 ? " core" : " cores") + ", median of up to " +
           std::to_string(options_.runs) + " runs" + faster_of_described() +
           (openmp_spins_long() ? std::string(", OpenMP threads spin: set GOMP_SPINCOUNT=") + short_spin_count : std::string()) + ")";
  }
  int cores() const { return cores_; }
  /// ", the faster of greedy-per-core and sequential schedules": what kind() says of FasterOf's
  /// two schedule policies (nothing under one policy).
  static std::string faster_of_described() {
    if constexpr (detail::is_faster_of<Policy>) {
      using Parts = FasterOfParts<Policy>;
      return ", the faster of " + std::string(Parts::Preferred::name) + " and " + std::string(Parts::Alternative::name) + " schedules";
    } else {
      return {};
    }
  }
  /// Wall seconds this runtime and its copies have spent measuring (preparing and timing
  /// runs, comparisons included): what a search on it pays for measuring.
  double measuring_seconds() const { return meter_->seconds; }
  /// Timed runs this runtime and its copies have made (warm-ups not counted): how many runs
  /// screening, settled comparisons and the deadline saved, independent of the machine's speed.
  std::size_t timed_runs() const { return meter_->runs; }
  /// What choosing schedules cost (FasterOf; zeros otherwise): graphs raced and inherited, and
  /// the runs and seconds that went to the schedule not chosen (part of measuring_seconds()).
  ScheduleChoiceStats const& schedule_choice_stats() const { return *choice_stats_; }
  CpuRuntimeOptions const& options() const { return options_; }
  /// The per-kernel cost model a search ranks candidates with before measuring them here:
  /// measured times where set_cost_table() gave them (cpu/profiler.hpp makes such a table),
  /// the roofline of this machine (host_device_spec) for the rest.
  MeasuredCost const& cost_model() const { return cost_; }
  void set_cost_table(CostTable table) { cost_ = MeasuredCost(std::move(table), host_device_spec(cores_)); }
  /// Each kernel's time in ms (indexed by kernel of `dag`), the kernel timed alone in `g` on
  /// this CPU with every core (CpuRuntimeOptions::kernel_runs runs, the median, less that of
  /// a run of no kernel): GreedyPerCore's kernel times. The times are kept by kernel signature
  /// (op_signature) for this runtime and its copies, so a search's candidates, which share
  /// most kernels with the graph they were rewritten from, time only their new ones. The cost
  /// model's estimate stands in for a kernel not timed: with CpuRuntimeOptions::time_kernels
  /// off, and after the deadline (set_deadline), which this timing keeps as measuring does.
  template <class Set>
  std::vector<double> kernel_times_ms(Graph<Set> const& g, KernelDag const& dag) {
    if (!options_.time_kernels) return schedule::estimated_kernel_times_ms(g, dag, cost_);
    auto& known = kernel_ms_->by_signature;
    std::vector<std::string> signature(dag.size());
    std::vector<std::size_t> untimed;  // the first kernel of each signature not timed before
    std::unordered_set<std::string> first;
    for (std::size_t k = 0; k < dag.size(); ++k) {
      NodeId id = dag.node(k);
      signature[k] = op_signature(g[id].op, input_descs(g, id));
      if (!known.contains(signature[k]) && first.insert(signature[k]).second) untimed.push_back(k);
    }
    std::size_t timed_now = 0;  // of `untimed`
    if (!untimed.empty() && !past_deadline()) {
      Stopwatch w(*meter_);
      CpuRuntimeOptions brief = options_;
      brief.warmup = 1;
      brief.runs = options_.kernel_runs;
      PreparedCpuGraph prepared(lowered(g), brief);
      double none = prepared.measure(Schedule{});
      for (std::size_t k : untimed) {
        if (past_deadline()) break;
        known.emplace(signature[k], schedule::detail::kernel_time_ms(dag, prepared, k, none));
        ++kernel_ms_->timed;
        ++timed_now;
      }
    }
    // The roofline's estimates are worked out only when a signature went untimed (the deadline).
    bool all_timed = timed_now == untimed.size();
    std::vector<double> ms = all_timed ? std::vector<double>(dag.size()) : schedule::estimated_kernel_times_ms(g, dag, cost_);
    for (std::size_t k = 0; k < dag.size(); ++k)
      if (auto it = known.find(signature[k]); it != known.end()) ms[k] = it->second;
    return ms;
  }
  /// Kernel signatures kernel_times_ms() has timed, by this runtime and its copies.
  std::size_t kernels_timed() const { return kernel_ms_->timed; }
  /// From `t` on, measurements stop at their minimum (5 runs, one block per side): a search's
  /// time limit then holds inside its measuring loops. Clock::time_point::max(): no deadline.
  void set_deadline(Clock::time_point t) { deadline_ = t; }

  /// Latency in ms of `g` under the Policy's schedule.
  template <class Set>
  double measure(Graph<Set> const& g) {
    return screen(g, std::numeric_limits<double>::infinity());
  }
  /// measure(g), except that timing stops once `g` is clearly slower than `bound_ms`
  /// (clearly_above): the median returned is then above the bound, but less precise.
  template <class Set>
  double screen(Graph<Set> const& g, double bound_ms) {
    Stopwatch w(*meter_);
    ScheduledGraph<Set> sg;
    if constexpr (detail::is_faster_of<Policy>) {
      double fresh = std::numeric_limits<double>::quiet_NaN();  // timed while choosing: the winner ran on as timed() runs it
      CpuPlan<Set> p = choose(g, bound_ms, &fresh);
      if (!std::isnan(fresh)) return fresh;
      sg = std::move(p.scheduled);  // chosen before: time the choice again
    } else {
      sg = Policy{}(g, *this);
    }
    CpuExecutable e = ready(lowered(sg.graph), sg.schedule);
    return median(timed(e, bound_ms));
  }
  /// Latency in ms of running schedule `s` of `g` (possibly only some of its kernels).
  template <class Set>
  double measure(Graph<Set> const& g, Schedule const& s) {
    Stopwatch w(*meter_);
    return prepare(g).measure(s);
  }
  /// measure(g, s) with the 4-D inputs and outputs `boundary` names channels-last where the
  /// kernels reading and writing them take it: `g` timed as a part of a model whose other kernels
  /// keep channels-last (placement groups, cpu/backends/place.hpp). Timing only (BoundaryChannelsLast).
  template <class Set>
  double measure(Graph<Set> const& g, Schedule const& s, BoundaryChannelsLast boundary) {
    Stopwatch w(*meter_);
    return PreparedCpuGraph(lowered(g, boundary), options_).measure(s);
  }
  /// `g` under `s`, lowered as measure(g, s, boundary) lowers it, with the measuring inputs
  /// written and warmed up: an executable for the caller to time interleaved with others
  /// (CpuExecutable::time), as placement times a group's backends side by side
  /// (cpu/backends/place.hpp). Its preparation counts in measuring_seconds(), its runs do not.
  template <class Set>
  CpuExecutable ready_to_time(Graph<Set> const& g, Schedule const& s, BoundaryChannelsLast boundary = {}) {
    Stopwatch w(*meter_);
    return ready(lowered(g, boundary), s);
  }
  /// Whether `challenger` runs faster than `incumbent` beyond noise (runtime/noise.hpp): each
  /// prepared under its plan, then timed in alternating blocks (CpuRuntimeOptions::compare_block
  /// runs, the first look after 5 a side) until the verdict is settled or each has `runs`
  /// samples. With `options.screen` (a search's candidate), it stops at the first look (5 runs
  /// a side) when the challenger is behind there, and under FasterOf a challenger not
  /// raced before runs the incumbent's schedule policy instead of racing both (which would
  /// cost up to twice its runs before the comparison starts): a gain only the other schedule
  /// has is missed, none is credited falsely. A graph that fails to run counts as infinitely slow. The incumbent's
  /// executable is kept for the next comparison: a search compares each of its candidates
  /// with the same best graph, and preparing Inception-v3 (lowering with its 24 M weights,
  /// oneDNN's primitives, the warm-up runs) costs about as much as a block of its runs.
  template <class Set>
  Comparison compare(Graph<Set> const& incumbent, Graph<Set> const& challenger, CompareOptions options = {}) {
    Stopwatch w(*meter_);
    ScheduledGraph<Set> a = plan(incumbent).scheduled;
    ScheduledGraph<Set> b = options.screen ? scheduled_like(challenger, a.policy) : plan(challenger).scheduled;
    std::uint64_t key = hash_combine(structural_hash(a.graph), typeid(Set).hash_code());
    auto& kept = *incumbent_;
    if (!kept.exe || kept.key != key || kept.schedule != a.schedule) {
      kept.exe.reset();  // its memory first: the new one may be as large
      kept.exe.emplace(ready(lowered(a.graph), a.schedule));
      kept.key = key;
      kept.schedule = a.schedule;
    }
    CpuExecutable eb = ready(lowered(b.graph), b.schedule);
    return compare_interleaved(*kept.exe, eb, [this](auto const&, auto const&) { return past_deadline(); }, options);
  }
  /// The schedule measure(g) times `g` with; under FasterOf, chosen by measuring (once per
  /// graph: the choice is kept by the graph's structural hash).
  template <class Set>
  CpuPlan<Set> plan(Graph<Set> const& g) {
    if constexpr (detail::is_faster_of<Policy>) {
      Stopwatch w(*meter_);
      return choose(g, std::numeric_limits<double>::infinity(), nullptr);
    } else {
      CpuPlan<Set> p;
      p.scheduled = Policy{}(g, *this);
      return p;
    }
  }

  /// plan(g) decided again: under FasterOf the choice kept for `g` is dropped and both schedules
  /// are raced afresh, with no bound and no family (the winner runs to the budget, the loser
  /// until it is slower beyond noise, or to the budget within noise). The choice kept from the search may rest on
  /// a screening of 5 runs, made minutes earlier: on this project's 2-core VM one executable's
  /// latency moves between levels for seconds at a time (AutoGraph's NASNet-A Mobile graph on
  /// one stream: 6.4, 10.4 and about 20 ms in one process), and one such stretch chose Nimble's
  /// streams (11.5 against 23.4 ms) for a graph that runs 6.4 ms on one stream.
  template <class Set>
  CpuPlan<Set> replan(Graph<Set> const& g) {
    if constexpr (detail::is_faster_of<Policy>) choices_->erase(structural_hash(g));
    auto family = std::exchange(family_, std::nullopt);
    CpuPlan<Set> p = plan(g);
    family_ = family;
    return p;
  }

  /// From here to end_family(), a graph not measured before is taken for a child of `parent`
  /// (a search's candidate and the graph it was rewritten from): under FasterOf it takes
  /// parent's choice when race_schedules allows, without the other schedule being timed.
  /// When parent's own choice was inherited, or not made, parent is raced first (for the
  /// choice only: the winner does not run on), so that a choice is only ever inherited from a
  /// race. No effect under one policy.
  template <class Set>
  void set_family(Graph<Set> const& parent) {
    if constexpr (detail::is_faster_of<Policy>) {
      Stopwatch w(*meter_);
      family_.reset();
      std::uint64_t key = structural_hash(parent);
      auto found = choices_->find(key);
      if (found == choices_->end() || found->second.made.basis == ChoiceBasis::inherited) {
        if (found != choices_->end()) choices_->erase(found);
        choose(parent, std::numeric_limits<double>::infinity(), nullptr, RaceOptions{.survivor_runs_on = false});
      }
      family_ = key;
    }
  }
  void end_family() { family_.reset(); }

  /// Lowers `g` once for timing many schedules of it (shape-only weights get random data).
  template <class Set>
  PreparedCpuGraph prepare(Graph<Set> const& g) {
    return PreparedCpuGraph(lowered(g), options_);
  }
  /// An executable for results: every weight must have data.
  template <class Set>
  CpuExecutable compile(Graph<Set> const& g, Schedule const& s, ExecOptions exec = {}) {
    if (exec.cores == 0) exec.cores = cores_;
    return CpuExecutable(lower(g, LowerOptions{.channels_last = options_.channels_last}), s, exec);
  }

 private:
  /// Seconds spent measuring, shared by copies; only the outermost Stopwatch counts (compare()
  /// may choose a plan, which measures).
  struct Meter {
    double seconds = 0;
    int depth = 0;
    std::size_t runs = 0;  // timed runs
  };
  struct Stopwatch {
    Meter& meter;
    Clock::time_point start = Clock::now();
    explicit Stopwatch(Meter& m) : meter(m) { ++meter.depth; }
    ~Stopwatch() {
      if (--meter.depth == 0) meter.seconds += std::chrono::duration<double>(Clock::now() - start).count();
    }
  };
  /// A FasterOf choice, by structural hash; `compared` false: one schedule from both policies.
  struct Choice {
    ScheduleChoice made;
    bool compared = false;
  };
  /// compare()'s incumbent, ready to time again (by its graph's structural hash, op set and
  /// schedule).
  struct KeptIncumbent {
    std::uint64_t key = 0;
    Schedule schedule;
    std::optional<CpuExecutable> exe;
  };
  /// The fewest timed runs a median is taken from: one block of interleaved_compare, and the
  /// minimum CpuExecutable::time keeps under a budget.
  static constexpr std::size_t min_runs = 5;

  bool past_deadline() const { return Clock::now() >= deadline_; }
  /// `g` under the schedule policy named `policy` (a ScheduledGraph's), unless FasterOf has
  /// chosen for `g` before: then as plan(g).
  template <class Set>
  ScheduledGraph<Set> scheduled_like(Graph<Set> const& g, std::string_view policy) {
    if constexpr (detail::is_faster_of<Policy>) {
      using Alternative = typename FasterOfParts<Policy>::Alternative;
      if (choices_->contains(structural_hash(g))) return plan(g).scheduled;
      if (policy == Alternative::name) return Alternative{}(g, *this);
      return typename FasterOfParts<Policy>::Preferred{}(g, *this);
    } else {
      return Policy{}(g, *this);
    }
  }
  template <class Set>
  std::shared_ptr<CpuGraph const> lowered(Graph<Set> const& g, BoundaryChannelsLast boundary = {}) const {
    return lower(g, LowerOptions{.random_weights = options_.weight_seed, .channels_last = options_.channels_last, .boundary = boundary});
  }
  /// An executable of `s` with the measuring inputs written, warmed up.
  CpuExecutable ready(std::shared_ptr<CpuGraph const> graph, Schedule const& s) const {
    CpuExecutable e(std::move(graph), s, {.complete = false, .cores = cores_});
    std::vector<Tensor> in;
    for (auto const& i : e.graph().inputs) in.push_back(Tensor::random(i.desc.shape, hash_combine(options_.weight_seed, i.id)));
    e.write_inputs(in);
    for (int i = 0; i < options_.warmup; ++i) e.run();
    return e;
  }
  bool over_budget(std::vector<double> const& samples) const {
    return options_.budget_ms > 0 && std::accumulate(samples.begin(), samples.end(), 0.0) >= options_.budget_ms;
  }
  /// Timed runs of `e`: `runs`, or fewer (at least min_runs) once over the budget or the
  /// deadline, or clearly slower than `bound_ms`.
  std::vector<double> timed(CpuExecutable& e, double bound_ms) const {
    std::vector<double> s;
    while (s.size() < static_cast<std::size_t>(options_.runs)) {
      s.push_back(e.time(0, 1).front());
      ++meter_->runs;
      if (s.size() >= min_runs && (over_budget(s) || past_deadline() || clearly_above(s, bound_ms))) break;
    }
    return s;
  }
  /// interleaved_compare of `a` (incumbent) and `b`, also stopping when `stop(samples_a, samples_b)`.
  template <class Stop>
  Comparison compare_interleaved(CpuExecutable& a, CpuExecutable& b, Stop&& stop, CompareOptions options = {}) const {
    auto time_of = [this](CpuExecutable& e) {
      return [&e, this](std::size_t n) {
        meter_->runs += n;
        return e.time(0, static_cast<int>(n));
      };
    };
    options.min_runs = std::max(options.min_runs, min_runs);
    return interleaved_compare(time_of(a), time_of(b), static_cast<std::size_t>(options_.runs), stop,
                               static_cast<std::size_t>(options_.compare_block), options);
  }
  /// FasterOf: the schedule race_schedules chooses, raced only where the two policies' schedules
  /// differ; each side stops early once clearly slower than `bound_ms` or over its budget, the
  /// winner runs on as timed() runs a single schedule. A graph chosen for before is not timed
  /// again; otherwise `*fresh_ms` (when given) receives the chosen schedule's median. The other
  /// schedule's executable is prepared only when it is first timed, and its preparation, warm-up
  /// and runs count in schedule_choice_stats() when it loses.
  template <class Set>
  CpuPlan<Set> choose(Graph<Set> const& g, double bound_ms, double* fresh_ms, RaceOptions race = {}) {
    using Preferred = typename FasterOfParts<Policy>::Preferred;
    using Alternative = typename FasterOfParts<Policy>::Alternative;
    auto plan = [](ScheduledGraph<Set> chosen, Choice const& c) {
      CpuPlan<Set> p;
      p.scheduled = std::move(chosen);
      if (c.compared) {
        p.other = std::string(c.made.second ? Preferred::name : Alternative::name);
        p.other_ms = c.made.other_ms;
        p.inherited = c.made.basis == ChoiceBasis::inherited;
      }
      p.chosen_ms = c.made.chosen_ms;
      return p;
    };
    std::uint64_t key = structural_hash(g);
    if (auto found = choices_->find(key); found != choices_->end()) {  // chosen before: schedule only the choice
      Choice c = found->second;
      return plan(c.made.second ? Alternative{}(g, *this) : Preferred{}(g, *this), c);
    }
    ScheduledGraph<Set> a = Preferred{}(g, *this), b = Alternative{}(g, *this);
    Choice c;
    if (a.schedule == b.schedule && structurally_equal(a.graph, b.graph)) {
      CpuExecutable e = ready(lowered(a.graph), a.schedule);
      auto samples = timed(e, bound_ms);
      c.made.chosen_ms = median(samples);
      c.made.chosen_runs = samples.size();
      choices_->emplace(key, c);
    } else {
      std::optional<ScheduleChoice> parent;
      if (family_) {
        auto p = choices_->find(*family_);
        if (p != choices_->end() && p->second.compared) parent = p->second.made;
      }
      auto la = lowered(a.graph);
      bool same_graph = structurally_equal(a.graph, b.graph);
      std::optional<CpuExecutable> exe[2];
      double seconds[2] = {0, 0};  // each side's preparation, warm-up and timed runs
      auto timer = [&](int side) {
        return [&, side](std::size_t n) {
          auto start = Clock::now();
          if (!exe[side]) exe[side].emplace(ready(side == 0 ? la : same_graph ? la : lowered(b.graph), side == 0 ? a.schedule : b.schedule));
          meter_->runs += n;
          std::vector<double> out = exe[side]->time(0, static_cast<int>(n));
          seconds[side] += std::chrono::duration<double>(Clock::now() - start).count();
          return out;
        };
      };
      auto done = [&](std::vector<double> const& s) {
        return s.size() >= min_runs && (over_budget(s) || past_deadline() || clearly_above(s, bound_ms));
      };
      race.max_runs = static_cast<std::size_t>(options_.runs);
      race.block = min_runs;
      c.made = race_schedules(timer(0), timer(1), done, parent ? &*parent : nullptr, race);
      c.compared = true;
      ScheduleChoiceStats& st = *choice_stats_;
      st.raced += c.made.basis == ChoiceBasis::raced;
      st.settled += c.made.settled;
      st.inherited += c.made.basis == ChoiceBasis::inherited;
      st.declined += c.made.declined;
      st.losing_runs += c.made.other_runs;
      st.losing_seconds += seconds[c.made.second ? 0 : 1];
      choices_->emplace(key, c);
    }
    if (fresh_ms) *fresh_ms = c.made.chosen_ms;
    return plan(c.made.second ? std::move(b) : std::move(a), c);
  }
  template <class P>
  struct FasterOfParts;
  template <class A, class B>
  struct FasterOfParts<FasterOf<A, B>> {
    using Preferred = A;
    using Alternative = B;
  };

  CpuRuntimeOptions options_;
  int cores_;
  MeasuredCost cost_;
  Clock::time_point deadline_ = Clock::time_point::max();
  std::shared_ptr<Meter> meter_ = std::make_shared<Meter>();
  std::shared_ptr<std::unordered_map<std::uint64_t, Choice>> choices_ = std::make_shared<std::unordered_map<std::uint64_t, Choice>>();
  std::shared_ptr<ScheduleChoiceStats> choice_stats_ = std::make_shared<ScheduleChoiceStats>();  // shared by copies, as meter_
  std::optional<std::uint64_t> family_;  // set_family's parent, by structural hash (this copy's)
  struct KernelTimes {
    std::unordered_map<std::string, double> by_signature;  // ms
    std::size_t timed = 0;
  };
  std::shared_ptr<KernelTimes> kernel_ms_ = std::make_shared<KernelTimes>();  // shared by copies, as meter_
  std::shared_ptr<KeptIncumbent> incumbent_ = std::make_shared<KeptIncumbent>();  // shared by copies, as meter_ (measurements never overlap: they would time each other)
};

using NimbleCpuRuntime = BasicCpuRuntime<schedule::Nimble>;
using SequentialCpuRuntime = BasicCpuRuntime<schedule::Sequential>;
/// The schedule policy of CpuRuntime and of the placing runtime: the faster of a stream per core
/// and one stream, measured per graph.
using StreamsOrOneStream = FasterOf<schedule::GreedyPerCore, schedule::Sequential>;
using CpuRuntime = BasicCpuRuntime<StreamsOrOneStream>;
static_assert(EstimatingRuntime<CpuRuntime> && ScreeningRuntime<CpuRuntime> && PairedScreeningRuntime<CpuRuntime> && DeadlineRuntime<CpuRuntime> && FamilyRuntime<CpuRuntime>);

}  // namespace autograph::cpu
