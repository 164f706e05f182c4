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
//   auto best = opt.optimize(g);   // best.graph, best.latency_ms, best.rewrites
//
// Without partitioning (`options.partition = false`) the search runs on the whole graph, as
// TASO does; with `measure_rounds = 0` the best graph by estimated cost is returned without
// measured rounds.
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <queue>
#include <string>
#include <unordered_set>
#include <vector>

#include "autograph/cost/policy.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/stats.hpp"
#include "autograph/graph/structural_hash.hpp"
#include "autograph/graph/subgraph.hpp"
#include "autograph/search/backtracking.hpp"
#include "autograph/search/partition.hpp"
#include "autograph/search/partition_dp.hpp"
#include "autograph/rules/engine.hpp"

namespace autograph {

struct OptimizerOptions {
  double relax = 1.1;                 // β of the backtracking search (TASO: α = 1.05)
  bool partition = true;              // flow partition + DP (false: search the whole graph)
  PartitionOptions partition_sizes{}; // 40 / 120
  PartitionDpOptions dp{};
  std::size_t chunk_budget = 24;      // graphs expanded per chunk search
  std::size_t whole_budget = 300;     // graphs expanded when searching the whole graph
  std::size_t seam_budget = 12;       // graphs expanded by the search across seams
  std::size_t top_k = 20;             // candidates measured per round
  std::size_t measure_rounds = 4;     // rounds of measured verification (0: estimate only)
  double time_limit_s = 60;
  bool progress = false;              // progress lines on stderr (rounds, candidates, best)
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
  std::string stop_reason;
  std::string runtime_kind;
};

template <class G, class RuleSet, class CostP, class RuntimeT>
class Optimizer {
 public:
  using Set = typename G::OpSet;
  static_assert(CostPolicy<CostP>, "the third argument must model autograph::CostPolicy (SumCost, CriticalPath, MixedCriticalPath<a>)");

  using Engine = rules::RuleEngine<Set, RuleSet>;

  /// `engine` carries the compile-time rules of RuleSet and any runtime rules (TASO's).
  explicit Optimizer(RuntimeT runtime = {}, OptimizerOptions options = {}, Engine engine = {})
      : runtime_(std::move(runtime)), options_(options), engine_(std::move(engine)) {}

  RuntimeT& runtime() { return runtime_; }
  OptimizerOptions& options() { return options_; }
  Engine const& engine() const { return engine_; }

  /// Calls emit(rewritten graph, rule name) once per applicable match of every rule.
  template <class Emit>
  void for_each_rewrite(Graph<Set> const& g, Emit&& emit) {
    for (auto const& f : engine_.find_matches(g))
      if (auto r = engine_.apply(g, f, rules::RewriteOptions{.fold_cache = &folds_})) emit(std::move(r->graph), engine_.name(f.rule));
  }
  /// How many rule mappings pass through each node: the partition's node capacity.
  std::vector<std::size_t> mappings_per_node(Graph<Set> const& g) const {
    std::vector<std::size_t> count(g.id_bound(), 0);
    for (auto const& f : engine_.find_matches(g))
      for (NodeId n : f.match.nodes) ++count[n];
    return count;
  }

  /// The policy's estimated cost of `g` (µs) under the runtime's cost model.
  double estimate(Graph<Set> const& g) const { return graph_cost(CostP{}, g, runtime_.cost_model()); }

  OptimizeResult<Set> optimize(Graph<Set> const& input) {
    auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    OptimizeResult<Set> r;
    r.runtime_kind = runtime_.kind();

    struct Entry {
      Graph<Set> graph;
      double latency;
      RewriteTrail trail;
    };
    auto slower = [](Entry const& a, Entry const& b) { return a.latency > b.latency; };
    std::priority_queue<Entry, std::vector<Entry>, decltype(slower)> queue(slower);
    std::unordered_set<std::uint64_t> measured;  // hashes of graphs already measured

    Entry best{input, runtime_.measure(input), {}};
    r.initial_latency_ms = best.latency;
    measured.insert(structural_hash(input));
    queue.push(best);

    std::size_t rounds = options_.measure_rounds == 0 ? 1 : options_.measure_rounds;
    r.stop_reason = "round limit of " + std::to_string(rounds) + " reached";
    for (std::size_t round = 0; round < rounds; ++round) {
      if (queue.empty()) {
        r.stop_reason = "no improved graph left to explore after round " + std::to_string(round);
        break;
      }
      if (elapsed() > options_.time_limit_s) {
        r.stop_reason = "time limit of " + std::to_string(options_.time_limit_s) + " s reached";
        break;
      }
      Entry cur = queue.top();
      queue.pop();
      ++r.rounds;
      auto cands = candidates(cur.graph, r.explored, t0);
      if (options_.measure_rounds == 0) {  // estimate only: the best candidate by the policy
        if (!cands.empty()) best = Entry{cands[0].graph, runtime_.measure(cands[0].graph), cur.trail.then(cands[0].trail)};
        r.measured += cands.empty() ? 0 : 1;
        r.stop_reason = "estimated cost only (no measured rounds)";
        break;
      }
      bool improved = false;
      std::size_t taken = 0;
      for (auto& c : cands) {
        if (taken == options_.top_k) break;
        if (!measured.insert(structural_hash(c.graph)).second) continue;
        ++taken;
        double lat = runtime_.measure(c.graph);
        ++r.measured;
        if (lat < best.latency) {
          best = Entry{c.graph, lat, cur.trail.then(c.trail)};
          queue.push(best);
          improved = true;
        }
      }
      if (options_.progress && elapsed() > 1.0)
        std::fprintf(stderr, "[autograph] round %zu: %zu candidates, %zu measured, best %.4f ms (%.1f s)\n", round + 1, cands.size(),
                     taken, best.latency, elapsed());
      if (!improved) {
        r.stop_reason = "no measured improvement in round " + std::to_string(round + 1);
        break;
      }
    }
    r.graph = std::move(best.graph);
    r.latency_ms = best.latency;
    r.estimated_cost = estimate(r.graph);
    r.rewrites = best.trail.counts();
    r.search_seconds = elapsed();
    return r;
  }

 private:
  /// Candidate graphs for one round, cheapest estimate first.
  std::vector<Candidate<Set>> candidates(Graph<Set> const& g, std::size_t& explored, std::chrono::steady_clock::time_point t0) {
    auto cost = [this](Graph<Set> const& h) { return estimate(h); };
    auto expand = [this](Graph<Set> const& h, auto&& emit) { for_each_rewrite(h, emit); };
    double left = options_.time_limit_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    BacktrackingOptions whole{.relax = options_.relax, .budget = options_.whole_budget, .top_k = options_.top_k, .time_limit_s = left};
    if (!options_.partition) {
      auto out = backtracking_search(g, expand, cost, whole);
      explored += out.expanded;
      return std::move(out.best);
    }

    auto mappings = mappings_per_node(g);
    auto part = partition(g, [&](NodeId id) { return mappings[id]; }, options_.partition_sizes);
    // BSMCP per chunk: the top-k graphs of the chunk's own search, kept for stitching.
    struct ChunkResult {
      Subgraph<Set> sub;
      std::vector<Candidate<Set>> best;
    };
    std::map<std::vector<std::size_t>, ChunkResult> chunks;
    BacktrackingOptions per_chunk{.relax = options_.relax, .budget = options_.chunk_budget, .top_k = std::max<std::size_t>(2, options_.top_k / 4),
                                  .time_limit_s = left};
    auto chunk_cost = [&](std::vector<std::size_t> const& parts) {
      std::vector<NodeId> nodes;
      for (auto p : parts) nodes.insert(nodes.end(), part.parts[p].begin(), part.parts[p].end());
      auto sub = extract(g, nodes);
      auto out = backtracking_search(sub.graph, expand, cost, per_chunk);
      explored += out.expanded;
      double c = out.best[0].cost;
      chunks[parts] = ChunkResult{std::move(sub), std::move(out.best)};
      return c;
    };
    auto plan = partition_dp(part, chunk_cost, options_.dp);

    // Stitch in reverse order: a later chunk's placeholders name values of earlier chunks,
    // which must still exist when it is stitched.
    auto assemble = [&](std::size_t alt_chunk, std::size_t alt_rank) {
      Graph<Set> out = g;
      RewriteTrail trail;
      for (std::size_t c = plan.chunks.size(); c-- > 0;) {
        auto const& cr = chunks.at(plan.chunks[c]);
        std::size_t rank = c == alt_chunk ? alt_rank : 0;
        stitch(out, cr.sub, cr.best[rank].graph, /*cleanup=*/false);
        trail = trail.then(cr.best[rank].trail);
      }
      out.remove_dead();
      return Candidate<Set>{std::move(out), 0.0, std::move(trail)};
    };
    std::vector<Candidate<Set>> result;
    auto best = assemble(plan.chunks.size(), 0);
    // Rewrites across seams: a short search on the whole stitched graph.
    BacktrackingOptions seams{.relax = 1.0, .budget = options_.seam_budget, .top_k = 1, .time_limit_s = left};
    auto seam = backtracking_search(best.graph, expand, cost, seams);
    explored += seam.expanded;
    best = Candidate<Set>{std::move(seam.best[0].graph), seam.best[0].cost, best.trail.then(seam.best[0].trail)};
    result.push_back(std::move(best));
    // Alternatives: the best plan with one chunk's runner-up in place of its best.
    for (std::size_t c = 0; c < plan.chunks.size() && result.size() < options_.top_k; ++c)
      for (std::size_t k = 1; k < chunks.at(plan.chunks[c]).best.size() && result.size() < options_.top_k; ++k) {
        auto alt = assemble(c, k);
        alt.cost = estimate(alt.graph);
        result.push_back(std::move(alt));
      }
    std::stable_sort(result.begin() + 1, result.end(), [](auto const& a, auto const& b) { return a.cost < b.cost; });
    return result;
  }

  RuntimeT runtime_;
  OptimizerOptions options_;
  Engine engine_;
  rules::FoldCache folds_;  // folded weights shared between all candidate graphs
};

}  // namespace autograph
