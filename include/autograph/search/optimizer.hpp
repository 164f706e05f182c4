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
//
// Two additions of ours, both switchable: searches take the improving rewrites of an
// expansion together (see backtracking.hpp), and when a round's best-estimated candidate
// measures slower than the graph it came from — the cost policy and the runtime disagree —
// the optimizer leaves out of later rounds the rules of that candidate that make the graph
// slower on their own. Each round measures those rules alone (applied wherever they match)
// beside the top-k, so a round can also take one rule's graph when it is the fastest. On the
// simulated H100, merging NasNet-A's parallel separable convolutions estimates 22% cheaper
// but runs 19% slower, while folding its BatchNorms runs 8% faster: without attribution no
// round improves. A candidate that measures faster keeps its rules even when one of them is
// slower alone: SqueezeNet's enlarge-conv-kernel slows a graph by itself and pays off through
// the merges it enables.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "autograph/cost/policy.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/stats.hpp"
#include "autograph/graph/structural_hash.hpp"
#include "autograph/graph/subgraph.hpp"
#include "autograph/search/backtracking.hpp"
#include "autograph/search/partition.hpp"
#include "autograph/search/partition_dp.hpp"
#include "autograph/rules/apply_independent.hpp"
#include "autograph/rules/engine.hpp"
#include "autograph/rules/fold_weights.hpp"

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

  /// The rewrites searches explore: every match of every rule not left out that `allow`
  /// accepts. It remembers the matches it emitted, so that `combine` can apply the improving
  /// ones of the same expansion together.
  class Expander {
   public:
    explicit Expander(Optimizer& o, std::function<bool(rules::FoundMatch const&)> allow = {}) : opt_(&o), allow_(std::move(allow)) {}
    template <class Emit>
    void operator()(Graph<Set> const& g, Emit&& emit) {
      emitted_.clear();
      for (auto const& f : opt_->engine_.find_matches(g)) {
        if (opt_->left_out_[f.rule] || (allow_ && !allow_(f))) continue;
        if (auto r = opt_->engine_.apply(g, f, search_rewrites)) {
          emitted_.push_back(f);
          emit(std::move(r->graph), opt_->engine_.name(f.rule));
        }
      }
    }
    /// `picks`: positions among the rewrites the last call emitted for `g`, best first.
    /// Emits them all applied together (where they do not interfere, the better first), and,
    /// when they come from several rules, each rule's picks together: where rewrites of two
    /// rules overlap, the one that improves more alone is not always the one to take.
    /// SqueezeNet: pulling two ReLUs through a Concat saves more than fusing one of them into
    /// its convolution, and blocks fusing both.
    template <class EmitMany>
    void combine(Graph<Set> const& g, std::span<std::size_t const> picks, EmitMany&& emit) {
      auto emit_together = [&](std::vector<rules::FoundMatch> const& chosen) {
        auto r = rules::apply_rebasing(opt_->engine_, g, std::span<rules::FoundMatch const>(chosen), search_rewrites);
        if (r.applied.size() < 2) return;  // one rewrite alone was emitted already
        std::vector<std::string> names;
        for (std::size_t i : r.applied) names.emplace_back(opt_->engine_.name(chosen[i].rule));
        emit(std::move(r.graph), std::span<std::string const>(names));
      };
      std::vector<rules::FoundMatch> chosen;
      std::vector<std::uint32_t> rule_order;  // each rule once, in order of its best pick
      for (std::size_t p : picks) {
        chosen.push_back(emitted_.at(p));
        if (std::ranges::find(rule_order, chosen.back().rule) == rule_order.end()) rule_order.push_back(chosen.back().rule);
      }
      emit_together(chosen);
      if (rule_order.size() < 2) return;
      for (std::uint32_t rule : rule_order) {
        std::vector<rules::FoundMatch> same;
        std::ranges::copy_if(chosen, std::back_inserter(same), [&](rules::FoundMatch const& f) { return f.rule == rule; });
        emit_together(same);
      }
    }

   private:
    Optimizer* opt_;
    std::function<bool(rules::FoundMatch const&)> allow_;
    std::vector<rules::FoundMatch> emitted_;
  };

  /// Calls emit(rewritten graph, rule name) once per applicable match of every rule.
  template <class Emit>
  void for_each_rewrite(Graph<Set> const& g, Emit&& emit) {
    Expander{*this}(g, emit);
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
    left_out_.assign(engine_.size(), 0);

    struct Entry {
      Graph<Set> graph;
      double latency;
      RewriteTrail trail;
    };
    auto slower = [](Entry const& a, Entry const& b) { return a.latency > b.latency; };
    std::priority_queue<Entry, std::vector<Entry>, decltype(slower)> queue(slower);
    std::unordered_map<std::uint64_t, double> measured;  // hash -> latency of every graph measured

    Entry best{input, runtime_.measure(input), {}};
    r.initial_latency_ms = best.latency;
    measured.emplace(structural_hash(input), best.latency);
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
      double round_best = std::numeric_limits<double>::infinity();
      double first_latency = std::numeric_limits<double>::quiet_NaN();  // of cands[0]
      for (auto& c : cands) {
        if (taken == options_.top_k) break;
        auto [seen, fresh] = measured.emplace(structural_hash(c.graph), 0.0);
        if (fresh) {
          ++taken;
          double lat = seen->second = runtime_.measure(c.graph);
          ++r.measured;
          round_best = std::min(round_best, lat);
          if (lat < best.latency) {
            best = Entry{c.graph, lat, cur.trail.then(c.trail)};
            queue.push(best);
            improved = true;
          }
        }
        if (&c == &cands.front()) first_latency = seen->second;
      }
      // Each rule of the best candidate, applied alone wherever it matches, is a candidate too;
      // when that candidate measured slower than its parent, the rules slower alone are left out.
      std::vector<std::string> slower;
      if (options_.attribute_rules && !cands.empty()) {
        bool disagree = !(first_latency < cur.latency);
        for (auto& p : probe_rules(cur.graph, cands[0].trail)) {
          ++r.measured;
          round_best = std::min(round_best, p.latency);
          if (disagree && p.latency > cur.latency * (1 + 1e-3) && !p.trail.counts().empty()) slower.push_back(p.rule);

          if (p.latency < best.latency && measured.emplace(structural_hash(p.graph), p.latency).second) {
            best = Entry{std::move(p.graph), p.latency, cur.trail.then(p.trail)};
            queue.push(best);
            improved = true;
          }
        }
      }
      if (options_.progress && elapsed() > 1.0)
        std::fprintf(stderr, "[autograph] round %zu: %zu candidates (estimates %.1f..%.1f, this graph %.1f), %zu measured (fastest %.4f ms), best %.4f ms (%.1f s)\n",
                     round + 1, cands.size(), cands.empty() ? 0.0 : cands.front().cost, cands.empty() ? 0.0 : cands.back().cost,
                     estimate(cur.graph), taken, round_best, best.latency, elapsed());
      // Rules that alone make the graph slower are left out from here on: later rounds would
      // spend their search on them and measure them slower again.
      for (auto const& name : slower) {
        for (std::size_t i = 0; i < engine_.size(); ++i)
          if (engine_.name(i) == name) left_out_[i] = 1;
        if (options_.progress) std::fprintf(stderr, "[autograph]   leaving out %s: on its own it makes the graph slower\n", name.c_str());
      }
      r.left_out.insert(r.left_out.end(), slower.begin(), slower.end());
      if (!improved && !slower.empty()) {  // search the same graph again without them
        queue.push(cur);
        continue;
      }
      if (!improved) {
        r.stop_reason = "no measured improvement in round " + std::to_string(round + 1);
        break;
      }
    }
    r.graph = std::move(best.graph);
    rules::fold_weight_transforms(r.graph, &folds_);  // searches left weight transforms unfolded
    r.latency_ms = best.latency;
    r.estimated_cost = estimate(r.graph);
    r.rewrites = best.trail.counts();
    r.search_seconds = elapsed();
    return r;
  }

 private:
  /// One rule applied on its own wherever it matches in a graph (independent matches
  /// together, repeated while it matches), measured.
  struct Probe {
    std::string rule;
    Graph<Set> graph;
    RewriteTrail trail;
    double latency = 0;
  };
  /// A probe for each rule of `trail` not left out.
  std::vector<Probe> probe_rules(Graph<Set> const& g, RewriteTrail const& trail) {
    std::vector<Probe> probes;
    for (auto const& [name, count] : trail.counts()) {
      Probe p{name, g, {}, 0.0};
      // Passes stop when the graph comes back to one already seen: a commutative rule
      // (commute-add) undoes itself every second pass.
      std::vector<Graph<Set>> seen{g};
      for (int pass = 0; pass < 8; ++pass) {
        std::vector<rules::FoundMatch> ms;
        for (std::uint32_t i = 0; i < engine_.size(); ++i)
          if (!left_out_[i] && engine_.name(i) == name) std::ranges::move(engine_.find_matches(p.graph, i), std::back_inserter(ms));
        auto res = rules::apply_independent(engine_, p.graph, std::span<rules::FoundMatch const>(ms), search_rewrites);
        if (res.applied.empty() ||
            std::ranges::any_of(seen, [&](Graph<Set> const& h) { return structurally_equal(h, res.graph); }))
          break;
        p.graph = std::move(res.graph);
        seen.push_back(p.graph);
        for (std::size_t i = 0; i < res.applied.size(); ++i) p.trail = p.trail.then(name);
      }
      if (p.trail.size() == 0) continue;
      p.latency = runtime_.measure(p.graph);
      probes.push_back(std::move(p));
    }
    return probes;
  }

  /// Candidate graphs for one round, cheapest estimate first.
  std::vector<Candidate<Set>> candidates(Graph<Set> const& g, std::size_t& explored, std::chrono::steady_clock::time_point t0) {
    auto cost = [this](Graph<Set> const& h) { return estimate(h); };
    Expander expand(*this);
    double left = options_.time_limit_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    BacktrackingOptions whole{
        .relax = options_.relax, .budget = options_.whole_budget, .top_k = options_.top_k, .time_limit_s = left, .combine = options_.combine};
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
    BacktrackingOptions per_chunk{.relax = options_.relax,
                                  .budget = options_.chunk_budget,
                                  .top_k = std::max<std::size_t>(2, options_.top_k / 4),
                                  .time_limit_s = left,
                                  .combine = options_.combine};
    auto search_chunk = [&](std::vector<std::size_t> const& parts, std::size_t& expanded) {
      std::vector<NodeId> nodes;
      for (auto p : parts) nodes.insert(nodes.end(), part.parts[p].begin(), part.parts[p].end());
      auto sub = extract(g, nodes);
      Expander chunk_expand(*this);  // one per search: it remembers its last expansion
      auto out = backtracking_search(sub.graph, chunk_expand, cost, per_chunk);
      expanded += out.expanded;
      return ChunkResult{std::move(sub), std::move(out.best)};
    };
    // Every plan takes each part, alone or grown into a larger chunk; the single parts are
    // searched up front on all cores (their searches share nothing but the thread-safe cost
    // memo), the DP's larger chunks on demand.
    {
      std::size_t n = part.parts.size();
      std::vector<std::optional<ChunkResult>> singles(n);
      std::vector<std::size_t> expanded(n, 0);
      std::vector<std::exception_ptr> failed(n);
      std::atomic<std::size_t> next{0};
      auto worker = [&] {
        for (std::size_t i; (i = next++) < n;) {
          try {
            singles[i] = search_chunk({i}, expanded[i]);
          } catch (...) {
            failed[i] = std::current_exception();
          }
        }
      };
      std::size_t threads = std::min<std::size_t>(n, options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency()));
      {
        std::vector<std::jthread> pool;
        for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
        worker();
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (failed[i]) std::rethrow_exception(failed[i]);
        explored += expanded[i];
        chunks.emplace(std::vector<std::size_t>{i}, std::move(*singles[i]));
      }
    }
    auto chunk_cost = [&](std::vector<std::size_t> const& parts) {
      auto it = chunks.find(parts);
      if (it == chunks.end()) it = chunks.emplace(parts, search_chunk(parts, explored)).first;
      return it->second.best[0].cost;
    };
    auto plan = partition_dp(part, chunk_cost, options_.dp);
    if (options_.progress && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > 1.0)
      std::fprintf(stderr, "[autograph]   %zu parts, DP %zu states%s, %zu chunks searched, %zu chunks chosen, %.1f s\n", part.parts.size(),
                   plan.states, plan.fell_back ? " (state limit: single parts from there)" : "", plan.chunk_searches, plan.chunks.size(),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

    // Stitch in reverse order: a later chunk's placeholders name values of earlier chunks,
    // which must still exist when it is stitched.
    // `owner[id]`: the chunk whose stitched graph node `id` came from (when given).
    constexpr std::size_t no_chunk = Partition::npos;
    auto assemble = [&](std::size_t alt_chunk, std::size_t alt_rank, std::vector<std::size_t>* owner = nullptr) {
      Graph<Set> out = g;
      if (owner) owner->assign(g.id_bound(), no_chunk);
      RewriteTrail trail;
      for (std::size_t c = plan.chunks.size(); c-- > 0;) {
        auto const& cr = chunks.at(plan.chunks[c]);
        std::size_t rank = c == alt_chunk ? alt_rank : 0;
        stitch(out, cr.sub, cr.best[rank].graph, /*cleanup=*/false);
        if (owner) owner->resize(out.id_bound(), c);
        trail = trail.then(cr.best[rank].trail);
      }
      out.remove_dead();
      return Candidate<Set>{std::move(out), 0.0, std::move(trail)};
    };
    std::vector<Candidate<Set>> result;
    std::vector<std::size_t> owner;
    auto best = assemble(plan.chunks.size(), 0, &owner);
    // Rewrites across seams (MetaFlow): a short search on the stitched graph over the matches
    // that span two chunks or use what the seam search itself built. A match inside one chunk
    // was that chunk's search's to take.
    Expander seam_expand(*this, [&](rules::FoundMatch const& f) {
      std::size_t first = no_chunk;
      for (NodeId n : f.match.nodes) {
        if (n >= owner.size()) return true;  // built by the seam search
        std::size_t o = owner[n];
        if (o == no_chunk) continue;         // an input or weight of the whole graph
        if (first == no_chunk) first = o;
        else if (o != first) return true;
      }
      return false;
    });
    BacktrackingOptions seams{.relax = 1.0, .budget = options_.seam_budget, .top_k = 1, .time_limit_s = left, .combine = options_.combine};
    auto seam = backtracking_search(best.graph, seam_expand, cost, seams);
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
  // Searches keep weight transforms as nodes (cost models see them as constants) and the
  // kept graph is folded once at the end: folding every candidate's would cost more than
  // the rewrite and hold the weights of graphs long thrown away.
  static constexpr rules::RewriteOptions search_rewrites{.fold = nullptr, .fold_cache = nullptr};  // no folder: fold once at the end
  rules::FoldCache folds_;
  std::vector<char> left_out_ = std::vector<char>(engine_.size(), 0);  // rules measured to slow the graph down
};

}  // namespace autograph
