#pragma once
// Optimizer<Graph, Rules, CostPolicy, Runtime>: AutoGraph's Algorithm 1.
//
// A priority queue of *measured* graphs. Each round takes the best unexplored graph,
// partitions it (flow-based, capacity = rule mappings through a node), runs the DP over
// partition sequences whose chunks are optimized by backtracking search under the cost policy,
// stitches the chosen chunks back, recovers rewrites across the seams with a small search on
// the whole graph, and ranks the resulting candidates by estimated cost. The top-k are
// measured on the Runtime (simulated or on the GPU); the ones that measure faster than the
// best so far join the queue. Rounds stop when none improves, or at the round or time limit.
//
//   Optimizer<Graph<>, rules::Default, MixedCriticalPath<0.25>, SimulatedRuntime<devices::H100>> opt;
//   auto best = opt.optimize(g);   // best.graph, best.latency_ms, best.rewrites, best.stop.describe()
//   std::puts(format_rule_report(best.rule_stats).c_str());
//
// The algorithms it is made of, each in its own header: the flow partition (partition.hpp),
// the chunk searches on a thread pool (part_search.hpp, BSMCP), the DP over partition
// sequences (partition_dp.hpp, MCP), plan assembly (plan_assembly.hpp), the seam search
// (seam_search.hpp), the rewrites searches explore (expander.hpp) and the rule probes
// (rule_probes.hpp).
//
// Without partitioning (`options.partition = false`) the search runs on the whole graph, as
// TASO does; with `measure_rounds = 0` the best graph by estimated cost is returned without
// measured rounds.
//
// Two additions of ours, both switchable: searches take the improving rewrites of an
// expansion together (see backtracking.hpp), and when a round's best-estimated candidate
// measures slower than the graph it came from — the cost policy and the runtime disagree —
// the optimizer leaves out of later rounds the rules of that candidate that make the graph
// slower on their own. Each round measures those rules alone (applied wherever they match)
// beside the top-k, so a round can also take one rule's graph when it is the fastest. On the
// simulated H100 of 2026-11-22 (the roofline before issue 15's changes), merging NasNet-A's
// parallel separable convolutions estimated 22% cheaper but ran 19% slower, while folding
// its BatchNorms ran 8% faster: without attribution no round improved. A candidate that measures faster keeps its rules even when one of them is
// slower alone: SqueezeNet's enlarge-conv-kernel slows a graph by itself and pays off through
// the merges it enables.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "autograph/cost/policy.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/structural_hash.hpp"
#include "autograph/rules/engine.hpp"
#include "autograph/rules/fold_weights.hpp"
#include "autograph/search/backtracking.hpp"
#include "autograph/search/expander.hpp"
#include "autograph/search/optimizer_args.hpp"
#include "autograph/search/part_search.hpp"
#include "autograph/search/partition.hpp"
#include "autograph/search/partition_dp.hpp"
#include "autograph/search/plan_assembly.hpp"
#include "autograph/search/rule_probes.hpp"
#include "autograph/search/rule_stats.hpp"
#include "autograph/search/seam_search.hpp"
#include "autograph/runtime/noise.hpp"
#include "autograph/runtime/schedule_race.hpp"
#include "autograph/search/stop_reason.hpp"

namespace autograph {

struct OptimizerOptions {
  double relax = 1.1;                 // β of the backtracking search (TASO: α = 1.05)
  bool partition = true;              // flow partition + DP (false: search the whole graph)
  PartitionOptions partition_sizes{}; // 40 / 120
  PartitionDpOptions dp{};
  std::size_t chunk_budget = 12;      // graphs expanded per chunk search (combining makes each go far)
  std::size_t whole_budget = 300;     // graphs expanded when searching the whole graph
  std::size_t seam_budget = 1;        // graphs expanded across seams: each is a whole-graph match, and combining takes
                                      // every independent improving seam rewrite in the first
  std::size_t top_k = 20;             // candidates measured per round
  std::size_t measure_rounds = 4;     // rounds of measured verification (0: estimate only)
  double time_limit_s = 60;
  bool progress = false;              // progress lines on stderr (rounds, candidates, best)
  bool combine = true;                // searches also try an expansion's improving rewrites together
  bool attribute_rules = true;        // when the best-estimated candidate measures slower, leave out its rules measured slower alone
  unsigned threads = 0;               // chunk searches in parallel (0: one per hardware thread)
};

template <class Set>
struct OptimizeResult {
  Graph<Set> graph;
  double latency_ms = 0;          // measured (or simulated) latency of `graph`
  double initial_latency_ms = 0;  // of the input graph, on the same runtime
  double estimated_cost = 0;      // the cost policy's value of `graph` (µs)
  double search_seconds = 0;
  std::size_t rounds = 0;
  std::size_t measured = 0;       // candidate graphs measured on the runtime
  std::size_t explored = 0;       // graphs expanded by all searches together
  std::map<std::string, std::size_t> rewrites;  // rule -> applications in `graph`
  std::vector<std::string> left_out;  // rules measured to slow the graph down, left out of later rounds
  OptimizeStop stop;                  // why the rounds ended (stop.describe(): the sentence)
  std::vector<RuleStats> rule_stats;  // by rule id: matches, rewrites, applications in `graph`, time (format_rule_report)
  std::string runtime_kind;
  std::vector<std::string> failures;  // candidates that failed to lower or run, counted infinitely slow: why
  std::size_t comparisons = 0;        // noise-aware re-measurements that decided (ComparingRuntime only)
};

template <class G, class RuleSet, class CostP, class RuntimeT>
class Optimizer {
  static_assert(GraphOverOpSet<G>, "Optimizer's first argument must be autograph::Graph<Set> for an OpSet (it has no OpSet, or is not a Graph)");
  static_assert(RuleListFor<RuleSet, typename G::OpSet>,
                "Optimizer's second argument must be rules::Rules<R...> whose every R models rules::Rule for the graph's OpSet "
                "(a name, roots<Set>(), match<Set>(), apply<Set>())");
  static_assert(CostPolicy<CostP>, "Optimizer's third argument must model autograph::CostPolicy (SumCost, CriticalPath, MixedCriticalPath<a>)");
  static_assert(OptimizerRuntime<RuntimeT, typename G::OpSet>,
                "Optimizer's fourth argument must model autograph::OptimizerRuntime: measure(graph) -> ms, kind() -> string, "
                "cost_model() -> an OpCostModel (SimulatedRuntime<Device> does)");

 public:
  using Set = typename G::OpSet;
  using Engine = rules::RuleEngine<Set, RuleSet>;
  using Expander = RuleExpander<Engine>;

  /// `engine` carries the compile-time rules of RuleSet and any runtime rules (TASO's).
  explicit Optimizer(RuntimeT runtime = {}, OptimizerOptions options = {}, Engine engine = {})
      : runtime_(std::move(runtime)), options_(options), engine_(std::move(engine)) {}

  RuntimeT& runtime() { return runtime_; }
  OptimizerOptions& options() { return options_; }
  Engine const& engine() const { return engine_; }

  /// The rewrites searches explore: every match of every rule not left out that `allow`
  /// accepts (empty: all), applied as searches apply them (weight transforms kept as nodes).
  Expander expander(std::function<bool(rules::FoundMatch const&)> allow = {}, RuleStatsRecorder* stats = nullptr) const;
  /// How many rule mappings pass through each node: the partition's node capacity.
  std::vector<std::size_t> mappings_per_node(Graph<Set> const& g) const;
  /// The policy's estimated cost of `g` (µs) under the runtime's cost model (Eq. 1 for MixedCriticalPath).
  double estimate(Graph<Set> const& g) const;
  /// AutoGraph's Algorithm 1: measured rounds over the candidates of the partitioned search.
  OptimizeResult<Set> optimize(Graph<Set> const& input);

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

  /// A measured graph and the rewrites that made it from the input.
  struct Entry {
    Graph<Set> graph;
    double latency;
    RewriteTrail trail;
  };
  struct Slower {
    bool operator()(Entry const& a, Entry const& b) const { return a.latency > b.latency; }
  };
  /// Algorithm 1's state: the queue of measured graphs that improved, fastest first, every
  /// latency measured (by structural hash), and the best graph so far.
  struct Measured {
    explicit Measured(Entry start) : best(std::move(start)) {
      latency.emplace(structural_hash(best.graph), best.latency);
      queue.push(best);
    }
    std::priority_queue<Entry, std::vector<Entry>, Slower> queue;
    std::unordered_map<std::uint64_t, double> latency;
    Entry best;
    /// Keeps `e` as the best (and queues it) when it is faster than the best so far.
    bool offer(Entry e) {
      if (!(e.latency < best.latency)) return false;
      best = std::move(e);
      queue.push(best);
      return true;
    }
  };
  /// What measuring one round's candidates found.
  struct RoundMeasure {
    bool improved = false;
    std::size_t taken = 0;  // candidates measured
    double fastest = std::numeric_limits<double>::infinity();
    double first_latency = std::numeric_limits<double>::quiet_NaN();  // of the best-estimated candidate
    // The expanded graph's median in the same interleaved runs as the first candidate's, where
    // a PairedScreeningRuntime timed the two together (NaN otherwise): on a machine whose speed
    // moves, the only latency of it the first candidate's may be compared with.
    double first_paired_with = std::numeric_limits<double>::quiet_NaN();
  };

  std::vector<Candidate<Set>> candidates(Graph<Set> const& g, std::size_t& explored, Clock::time_point t0, RuleStatsRecorder& stats);
  std::vector<Candidate<Set>> partitioned_candidates(Graph<Set> const& g, std::size_t& explored, Clock::time_point t0, RuleStatsRecorder& stats);
  RoundMeasure measure_top_k(Entry const& cur, std::vector<Candidate<Set>> const& cands, Measured& m, OptimizeResult<Set>& r);
  std::vector<RuleProbe<Set>> attribute_rules(Entry const& cur, std::vector<Candidate<Set>> const& cands, RoundMeasure& round, Measured& m,
                                              OptimizeResult<Set>& r, RuleStatsRecorder& stats);
  /// The runtime's latency of `g`; infinity when it cannot lower or run it (the reason kept in
  /// r.failures). Where only whether `g` may beat `bound_ms` matters, a ScreeningRuntime stops
  /// timing once `g` is clearly slower than it.
  double measure_or_fail(Graph<Set> const& g, OptimizeResult<Set>& r, double bound_ms = std::numeric_limits<double>::infinity());
  /// Tells a FamilyRuntime that the graphs measured next are rewritten from `parent`, so that
  /// what it learnt measuring parent (which schedule runs it faster) may carry over to them.
  void begin_family(Graph<Set> const& parent, OptimizeResult<Set>& r);
  /// Tells a DeadlineRuntime when this optimize()'s time limit passes (past it, measurements
  /// stop at their minimum of runs); `lift`: no deadline any more.
  void tell_deadline(bool lift);
  /// Estimate only (measure_rounds == 0): the best candidate by the cost policy, measured once.
  void keep_best_estimate(Entry const& cur, std::vector<Candidate<Set>> const& cands, Measured& m, OptimizeResult<Set>& r);
  /// Whether the time limit has passed (checked between measurements too: on a measuring
  /// runtime one round's candidates take longer than the limit).
  bool out_of_time() const { return seconds_since(t0_) > options_.time_limit_s; }
  /// A progress line after a measurement, at most one a second.
  void print_measured(char const* what, std::size_t i, std::size_t n, double latency, Entry const& best);
  /// Whether `challenger` (measured `latency` once) beats `incumbent` for good: on a runtime
  /// that measures (ComparingRuntime), both are re-measured interleaved and the challenger must
  /// win beyond the noise margin; the latencies are updated to the re-measured medians.
  bool confirm_faster(Entry& incumbent, Graph<Set> const& challenger, double& latency, OptimizeResult<Set>& r);
  /// A PairedScreeningRuntime's measurement of a candidate: `challenger` timed interleaved
  /// with the incumbent, screened out at the first look when behind, otherwise decided beyond
  /// noise (`faster`). Returns the comparison (a challenger that cannot run: infinitely slow,
  /// the reason kept in r.failures); the incumbent's latency becomes its median of the same runs.
  Comparison challenge(Entry& incumbent, Graph<Set> const& challenger, OptimizeResult<Set>& r);
  void leave_out(std::vector<RuleProbe<Set>> const& slower, OptimizeResult<Set>& r);
  void print_round(std::size_t round, std::vector<Candidate<Set>> const& cands, Entry const& cur, RoundMeasure const& measure, Measured const& m,
                   Clock::time_point t0) const;
  void finish(OptimizeResult<Set>& r, Entry best, RuleStatsRecorder& stats);

  RuntimeT runtime_;
  OptimizerOptions options_;
  Engine engine_;
  Clock::time_point t0_ = Clock::now();            // of the optimize() running
  Clock::time_point last_progress_ = t0_;          // of the last progress line
  // Searches keep weight transforms as nodes (cost models see them as constants) and the
  // kept graph is folded once at the end: folding every candidate's would cost more than
  // the rewrite and hold the weights of graphs long thrown away.
  static constexpr rules::RewriteOptions search_rewrites{.fold = nullptr, .fold_cache = nullptr};  // no folder: fold once at the end
  rules::FoldCache folds_;
  std::vector<char> left_out_ = std::vector<char>(engine_.size(), 0);  // rules measured to slow the graph down
};

// Members are defined out of the class: an `extern template class Optimizer<...>` then keeps
// every translation unit but the one that instantiates it from compiling them again.

template <class G, class RuleSet, class CostP, class RuntimeT>
auto Optimizer<G, RuleSet, CostP, RuntimeT>::expander(std::function<bool(rules::FoundMatch const&)> allow, RuleStatsRecorder* stats) const
    -> Expander {
  return Expander(engine_, ExpanderOptions{.left_out = left_out_, .rewrite = search_rewrites, .allow = std::move(allow), .stats = stats});
}

template <class G, class RuleSet, class CostP, class RuntimeT>
std::vector<std::size_t> Optimizer<G, RuleSet, CostP, RuntimeT>::mappings_per_node(Graph<Set> const& g) const {
  std::vector<std::size_t> count(g.id_bound(), 0);
  for (auto const& f : engine_.find_matches(g))
    for (NodeId n : f.match.nodes) ++count[n];
  return count;
}

template <class G, class RuleSet, class CostP, class RuntimeT>
double Optimizer<G, RuleSet, CostP, RuntimeT>::estimate(Graph<Set> const& g) const {
  return graph_cost(CostP{}, g, runtime_.cost_model());
}

template <class G, class RuleSet, class CostP, class RuntimeT>
auto Optimizer<G, RuleSet, CostP, RuntimeT>::optimize(Graph<Set> const& input) -> OptimizeResult<Set> {
  auto t0 = t0_ = last_progress_ = Clock::now();
  OptimizeResult<Set> r;
  r.runtime_kind = runtime_.kind();
  tell_deadline(false);
  left_out_.assign(engine_.size(), 0);
  RuleStatsRecorder stats(engine_.size());
  Measured m(Entry{input, runtime_.measure(input), {}});
  r.initial_latency_ms = m.best.latency;
  std::size_t rounds = options_.measure_rounds == 0 ? 1 : options_.measure_rounds;
  r.stop = {StopReason::round_limit, rounds, 0};
  for (std::size_t round = 0; round < rounds; ++round) {
    if (m.queue.empty()) {
      r.stop = {StopReason::queue_empty, round, 0};
      break;
    }
    if (seconds_since(t0) > options_.time_limit_s) {
      r.stop = {StopReason::time_limit, round, options_.time_limit_s};
      break;
    }
    Entry cur = m.queue.top();  // the fastest graph not yet explored
    m.queue.pop();
    ++r.rounds;
    auto cands = candidates(cur.graph, r.explored, t0, stats);  // partition, DP, stitch, seams: cheapest estimate first
    if (options_.measure_rounds == 0) {
      keep_best_estimate(cur, cands, m, r);
      r.stop = {StopReason::estimate_only, round + 1, 0};
      break;
    }
    begin_family(cur.graph, r);  // the round's candidates and probes are rewritten from cur
    auto measure = measure_top_k(cur, cands, m, r);  // the faster than the best join the queue
    auto slower = attribute_rules(cur, cands, measure, m, r, stats);
    if constexpr (FamilyRuntime<RuntimeT, Set>) runtime_.end_family();
    print_round(round, cands, cur, measure, m, t0);
    leave_out(slower, r);
    if (out_of_time()) {  // within the round's measurements: what it verified so far is kept
      r.stop = {StopReason::time_limit, round + 1, options_.time_limit_s};
      break;
    }
    if (!measure.improved && !slower.empty()) {  // search the same graph again without them
      m.queue.push(cur);
      continue;
    }
    if (!measure.improved) {
      r.stop = {StopReason::no_improvement, round + 1, 0};
      break;
    }
  }
  tell_deadline(true);
  finish(r, std::move(m.best), stats);
  r.search_seconds = seconds_since(t0);
  return r;
}

template <class G, class RuleSet, class CostP, class RuntimeT>
void Optimizer<G, RuleSet, CostP, RuntimeT>::begin_family(Graph<Set> const& parent, OptimizeResult<Set>& r) {
  if constexpr (FamilyRuntime<RuntimeT, Set>) {
    try {
      runtime_.set_family(parent);
    } catch (std::exception const& e) {  // the parent ran before; if it cannot now, its children are measured without its choice
      r.failures.push_back(e.what());
      runtime_.end_family();
    }
  }
}

template <class G, class RuleSet, class CostP, class RuntimeT>
void Optimizer<G, RuleSet, CostP, RuntimeT>::tell_deadline(bool lift) {
  if constexpr (DeadlineRuntime<RuntimeT>) {
    auto limit = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.time_limit_s));
    runtime_.set_deadline(lift || options_.time_limit_s >= 1e9 ? Clock::time_point::max() : t0_ + limit);
  }
}

template <class G, class RuleSet, class CostP, class RuntimeT>
void Optimizer<G, RuleSet, CostP, RuntimeT>::keep_best_estimate(Entry const& cur, std::vector<Candidate<Set>> const& cands, Measured& m,
                                                                OptimizeResult<Set>& r) {
  if (cands.empty()) return;
  m.best = Entry{cands[0].graph, runtime_.measure(cands[0].graph), cur.trail.then(cands[0].trail)};
  ++r.measured;
}

template <class G, class RuleSet, class CostP, class RuntimeT>
double Optimizer<G, RuleSet, CostP, RuntimeT>::measure_or_fail(Graph<Set> const& g, OptimizeResult<Set>& r, double bound_ms) {
  ++r.measured;
  try {
    if constexpr (ScreeningRuntime<RuntimeT, Set>)
      return std::isfinite(bound_ms) ? runtime_.screen(g, bound_ms) : runtime_.measure(g);
    else
      return runtime_.measure(g);
  } catch (std::exception const& e) {  // a candidate that cannot run is slow, not the end of the search
    r.failures.push_back(e.what());
    return std::numeric_limits<double>::infinity();
  }
}

template <class G, class RuleSet, class CostP, class RuntimeT>
bool Optimizer<G, RuleSet, CostP, RuntimeT>::confirm_faster(Entry& incumbent, Graph<Set> const& challenger, double& latency,
                                                            OptimizeResult<Set>& r) {
  if (!(latency < incumbent.latency)) return false;
  if constexpr (ComparingRuntime<RuntimeT, Set>) {
    Comparison c;
    try {
      c = runtime_.compare(incumbent.graph, challenger);
    } catch (std::exception const& e) {
      r.failures.push_back(e.what());
      return false;
    }
    ++r.comparisons;
    incumbent.latency = c.incumbent_ms;
    latency = c.challenger_ms;
    return c.faster;
  } else {
    return true;
  }
}

template <class G, class RuleSet, class CostP, class RuntimeT>
Comparison Optimizer<G, RuleSet, CostP, RuntimeT>::challenge(Entry& incumbent, Graph<Set> const& challenger, OptimizeResult<Set>& r) {
  if constexpr (PairedScreeningRuntime<RuntimeT, Set>) {
    ++r.measured;
    try {
      Comparison c = runtime_.compare(incumbent.graph, challenger, CompareOptions{.screen = true});
      ++r.comparisons;
      incumbent.latency = c.incumbent_ms;
      return c;
    } catch (std::exception const& e) {  // a candidate that cannot run is slow, not the end of the search
      r.failures.push_back(e.what());
    }
  }
  return Comparison{.incumbent_ms = incumbent.latency, .challenger_ms = std::numeric_limits<double>::infinity()};
}

/// The top-k candidates not measured before, measured; the faster than the best join the
/// queue. On a PairedScreeningRuntime each is measured paired with the best so far (challenge);
/// otherwise alone, screened against the best's latency, and confirmed by a comparison.
template <class G, class RuleSet, class CostP, class RuntimeT>
auto Optimizer<G, RuleSet, CostP, RuntimeT>::measure_top_k(Entry const& cur, std::vector<Candidate<Set>> const& cands, Measured& m,
                                                           OptimizeResult<Set>& r) -> RoundMeasure {
  RoundMeasure round;
  std::size_t n = std::min(cands.size(), options_.top_k);
  for (auto const& c : cands) {
    if (round.taken == options_.top_k || out_of_time()) break;
    auto [seen, fresh] = m.latency.emplace(structural_hash(c.graph), 0.0);
    if (fresh) {
      ++round.taken;
      // Screened against the best: a candidate clearly slower cannot change a decision, so
      // it is not timed further (the latency kept for it is then a rough one, above the best's).
      double lat;
      bool faster;
      if constexpr (PairedScreeningRuntime<RuntimeT, Set>) {
        bool const with_cur = &c == &cands.front() && structural_hash(m.best.graph) == structural_hash(cur.graph);
        Comparison pair = challenge(m.best, c.graph, r);
        lat = seen->second = pair.challenger_ms;
        faster = pair.faster;
        if (with_cur) round.first_paired_with = pair.incumbent_ms;
      } else {
        lat = seen->second = measure_or_fail(c.graph, r, m.best.latency);
        faster = confirm_faster(m.best, c.graph, lat, r);
      }
      round.fastest = std::min(round.fastest, lat);
      if (faster && m.offer(Entry{c.graph, lat, cur.trail.then(c.trail)})) round.improved = true;
      print_measured("candidate", round.taken, n, lat, m.best);
    }
    if (&c == &cands.front()) round.first_latency = seen->second;
  }
  return round;
}

/// Each rule of the best-estimated candidate, applied alone wherever it matches, is a
/// candidate too (rule_probes.hpp); when that candidate measured slower than its parent, the
/// rules slower alone are returned, to be left out.
template <class G, class RuleSet, class CostP, class RuntimeT>
auto Optimizer<G, RuleSet, CostP, RuntimeT>::attribute_rules(Entry const& cur, std::vector<Candidate<Set>> const& cands, RoundMeasure& round,
                                                             Measured& m, OptimizeResult<Set>& r, RuleStatsRecorder& stats)
    -> std::vector<RuleProbe<Set>> {
  std::vector<RuleProbe<Set>> slower;
  if (!options_.attribute_rules || cands.empty()) return slower;
  // Where the expanded graph was timed together with the first candidate, their medians of
  // those runs decide; its latency from an earlier measurement may come from another speed
  // of the machine.
  bool const disagree = std::isnan(round.first_paired_with) ? !(round.first_latency < cur.latency)
                                                            : !(round.first_latency < round.first_paired_with);
  constexpr bool paired = PairedScreeningRuntime<RuntimeT, Set>;
  // Past the time limit a probe is not measured (NaN: neither slower nor faster than anything).
  // On a PairedScreeningRuntime it is measured below, paired with the best as the candidates
  // were (0 marks it to be): timed alone first, its runs would be thrown away.
  auto probe_measure = [&](Graph<Set> const& h) {
    if (out_of_time()) return std::numeric_limits<double>::quiet_NaN();
    return paired ? 0.0 : measure_or_fail(h, r);
  };
  auto probes = probe_rules(engine_, cur.graph, cands[0].trail, probe_measure,
                            RuleProbeOptions{.left_out = left_out_, .rewrite = search_rewrites, .stats = &stats});
  std::uint64_t const cur_hash = structural_hash(cur.graph);
  // cur's latency to set a probe's beside: of the last runs paired with it where there were any.
  double cur_ms = std::isnan(round.first_paired_with) ? cur.latency : round.first_paired_with;
  for (auto& p : probes) {
    if (std::isnan(p.latency) || out_of_time()) continue;
    bool faster = false;
    double offer_ms = p.latency;  // p's latency should it be the best
    if constexpr (paired) {
      auto [seen, fresh] = m.latency.emplace(structural_hash(p.graph), 0.0);
      if (fresh) {
        bool const with_cur = structural_hash(m.best.graph) == cur_hash;
        Comparison pair = challenge(m.best, p.graph, r);
        seen->second = pair.challenger_ms;
        faster = pair.faster;
        if (with_cur) cur_ms = pair.incumbent_ms;
      }
      offer_ms = p.latency = seen->second;
    } else {
      faster = p.latency < m.best.latency && m.latency.emplace(structural_hash(p.graph), p.latency).second &&
               confirm_faster(m.best, p.graph, offer_ms, r);
    }
    round.fastest = std::min(round.fastest, p.latency);
    // Slower alone: by more than 0.1% on a simulator; on a measuring runtime, the graph without
    // the rule must win a noise-aware re-measurement against the graph with it.
    bool slows = disagree && p.latency > cur_ms * (1 + 1e-3);
    if constexpr (ComparingRuntime<RuntimeT, Set>) {
      if (slows && std::isfinite(p.latency)) {
        try {
          slows = runtime_.compare(p.graph, cur.graph).faster;
          ++r.comparisons;
        } catch (std::exception const& e) {
          r.failures.push_back(e.what());
        }
      }
    }
    if (faster) round.improved |= m.offer(Entry{p.graph, offer_ms, cur.trail.then(p.trail)});  // a copy-on-write copy
    if (slows) slower.push_back(std::move(p));
  }
  return slower;
}

template <class G, class RuleSet, class CostP, class RuntimeT>
void Optimizer<G, RuleSet, CostP, RuntimeT>::print_measured(char const* what, std::size_t i, std::size_t n, double latency, Entry const& best) {
  if (!options_.progress || !(seconds_since(last_progress_) > 1.0)) return;
  last_progress_ = Clock::now();
  std::string measuring;
  if constexpr (requires { runtime_.measuring_seconds(); })
    measuring = ", " + std::to_string(static_cast<long>(runtime_.measuring_seconds())) + " s measuring";
  std::fprintf(stderr, "[autograph]   %s %zu/%zu: %.4f ms, best %.4f ms (%.1f s%s)\n", what, i, n, latency, best.latency, seconds_since(t0_),
               measuring.c_str());
}

template <class G, class RuleSet, class CostP, class RuntimeT>
void Optimizer<G, RuleSet, CostP, RuntimeT>::print_round(std::size_t round, std::vector<Candidate<Set>> const& cands, Entry const& cur,
                                                         RoundMeasure const& measure, Measured const& m, Clock::time_point t0) const {
  if (!options_.progress || !(seconds_since(t0) > 1.0)) return;
  std::string measuring;
  if constexpr (requires { runtime_.measuring_seconds(); })
    measuring = ", " + std::to_string(static_cast<long>(runtime_.measuring_seconds())) + " s of it measuring";
  std::fprintf(stderr, "[autograph] round %zu: %zu candidates (estimates %.1f..%.1f, this graph %.1f), %zu measured (fastest %.4f ms), best %.4f ms (%.1f s%s)\n",
               round + 1, cands.size(), cands.empty() ? 0.0 : cands.front().cost, cands.empty() ? 0.0 : cands.back().cost, estimate(cur.graph),
               measure.taken, measure.fastest, m.best.latency, seconds_since(t0), measuring.c_str());
}

/// Rules that alone make the graph slower are left out from here on: later rounds would spend
/// their search on them and measure them slower again.
template <class G, class RuleSet, class CostP, class RuntimeT>
void Optimizer<G, RuleSet, CostP, RuntimeT>::leave_out(std::vector<RuleProbe<Set>> const& slower, OptimizeResult<Set>& r) {
  for (auto const& p : slower) {
    for (RuleId i : p.ids) left_out_[i] = 1;
    if (options_.progress) std::fprintf(stderr, "[autograph]   leaving out %s: on its own it makes the graph slower\n", p.rule.c_str());
    r.left_out.push_back(p.rule);
  }
}

/// The best graph, its weight transforms folded (searches left them unfolded), its rewrites
/// and the per-rule report, with names resolved.
template <class G, class RuleSet, class CostP, class RuntimeT>
void Optimizer<G, RuleSet, CostP, RuntimeT>::finish(OptimizeResult<Set>& r, Entry best, RuleStatsRecorder& stats) {
  r.graph = std::move(best.graph);
  rules::fold_weight_transforms(r.graph, &folds_);
  r.latency_ms = best.latency;
  r.estimated_cost = estimate(r.graph);
  auto name_of = [this](RuleId id) { return engine_.name(id); };
  r.rewrites = best.trail.counts(name_of);
  r.rule_stats = stats.take();
  for (RuleId i = 0; i < r.rule_stats.size(); ++i) r.rule_stats[i].name = name_of(i);
  for (auto const& [id, n] : best.trail.id_counts()) r.rule_stats.at(id).applications = n;
}

/// Candidate graphs for one round, cheapest estimate first: TASO's search on the whole graph,
/// or AutoGraph's partitioned one.
template <class G, class RuleSet, class CostP, class RuntimeT>
auto Optimizer<G, RuleSet, CostP, RuntimeT>::candidates(Graph<Set> const& g, std::size_t& explored, Clock::time_point t0, RuleStatsRecorder& stats)
    -> std::vector<Candidate<Set>> {
  double left = options_.time_limit_s - seconds_since(t0);
  if (options_.partition) return partitioned_candidates(g, explored, t0, stats);
  auto expand = expander({}, &stats);
  auto out = backtracking_search(g, expand, [this](Graph<Set> const& h) { return estimate(h); },
                                 BacktrackingOptions{.relax = options_.relax,
                                                     .budget = options_.whole_budget,
                                                     .top_k = options_.top_k,
                                                     .time_limit_s = left,
                                                     .combine = options_.combine});
  explored += out.expanded;
  return std::move(out.best);
}

/// AutoGraph §4.3: flow partition, every part's search (BSMCP) on all cores, the DP over
/// partition sequences (MCP) searching its larger chunks on demand, the chosen plan assembled
/// and searched across its seams, then the plan's alternatives (one chunk's runner-up each).
/// @post the first candidate is the plan after the seam search; the rest sorted by cost.
template <class G, class RuleSet, class CostP, class RuntimeT>
auto Optimizer<G, RuleSet, CostP, RuntimeT>::partitioned_candidates(Graph<Set> const& g, std::size_t& explored, Clock::time_point t0, RuleStatsRecorder& stats)
    -> std::vector<Candidate<Set>> {
  double left = options_.time_limit_s - seconds_since(t0);
  auto cost = [this](Graph<Set> const& h) { return estimate(h); };
  auto make_expander = [&] { return expander({}, &stats); };
  auto mappings = mappings_per_node(g);
  auto part = partition(g, [&](NodeId id) { return mappings[id]; }, options_.partition_sizes);
  BacktrackingOptions per_chunk{.relax = options_.relax,
                                .budget = options_.chunk_budget,
                                .top_k = std::max<std::size_t>(2, options_.top_k / 4),
                                .time_limit_s = left,
                                .combine = options_.combine};
  // BSMCP per chunk (its top-k graphs, kept for stitching), memoized by the chunk's parts.
  std::map<std::vector<std::size_t>, ChunkSearch<Set>> chunks;
  auto singles = search_parts_in_parallel(g, part, make_expander, cost, PartSearchOptions{.search = per_chunk, .threads = options_.threads});
  for (std::size_t i = 0; i < singles.size(); ++i) {
    explored += singles[i].expanded;
    chunks.emplace(std::vector<std::size_t>{i}, std::move(singles[i]));
  }
  auto chunk_cost = [&](std::vector<std::size_t> const& parts) {
    auto it = chunks.find(parts);
    if (it == chunks.end()) {
      auto searched = search_chunk(g, part, std::span<std::size_t const>(parts), make_expander, cost, per_chunk);
      explored += searched.expanded;
      it = chunks.emplace(parts, std::move(searched)).first;
    }
    return it->second.best[0].cost;
  };
  auto plan = partition_dp(part, chunk_cost, options_.dp);
  if (options_.progress && seconds_since(t0) > 1.0)
    std::fprintf(stderr, "[autograph]   %zu parts, DP %zu states%s, %zu chunks searched, %zu chunks chosen, %.1f s\n", part.parts.size(),
                 plan.states, plan.fell_back ? " (state limit: single parts from there)" : "", plan.chunk_searches, plan.chunks.size(),
                 seconds_since(t0));
  std::vector<ChunkSearch<Set> const*> chosen;
  for (auto const& c : plan.chunks) chosen.push_back(&chunks.at(c));
  std::span<ChunkSearch<Set> const* const> plan_chunks(chosen);

  std::vector<std::size_t> owner;
  auto stitched = assemble_plan(g, plan_chunks, {}, &owner);
  auto seams = search_seams(stitched, owner, [&](auto allow) { return expander(std::move(allow), &stats); }, cost,
                            BacktrackingOptions{.relax = 1.0, .budget = options_.seam_budget, .top_k = 1, .time_limit_s = left, .combine = options_.combine});
  explored += seams.expanded;
  std::vector<Candidate<Set>> result;
  result.push_back(std::move(seams.best));
  for (auto& alt : plan_alternatives(g, plan_chunks, cost, options_.top_k > 0 ? options_.top_k - 1 : 0)) result.push_back(std::move(alt));
  std::stable_sort(result.begin() + 1, result.end(), [](auto const& a, auto const& b) { return a.cost < b.cost; });
  return result;
}

}  // namespace autograph
