#pragma once
// IOS, the inter-operator scheduler (Ding et al., MLSys 2021): the graph runs as a sequence of
// stages; each stage either runs its groups concurrently (one stream each) or, when it is a
// set of convolutions reading one input, as one merged convolution. A dynamic programme over
// the sets of kernels still to run picks the stages (detail/ios_dp.hpp), with stage latencies
// measured by a Runtime and cached per operator set.
//
// Large graphs are scheduled block by block, as IOS does: blocks end at single-node cuts (a
// kernel every other kernel either precedes or follows). IOS's models name their blocks (its
// NASNet is cut per cell, its RandWire per stage; `cut_after` takes such boundaries). Here a
// block with more than `max_block_kernels` kernels or `max_block_states` DP states (counted
// before the DP runs) is first cut at its natural boundaries: positions of the kernel order
// crossed by at most `max_cut_values` live values (detail/ios_blocks.hpp; a NASNet cell
// boundary is crossed by the two values the next cells read), into the largest pieces
// within the limits. A piece that still does not fit is cut along its levels into the
// longest pieces within them. A natural cut can also lose (a NASNet cell reads the cell
// before the previous one, and a cut along levels keeps those reads beside the previous
// cell), so such a block is also planned cut along its levels alone and the plan with the
// smaller objective stays: a second DP over that block. A block whose DP would still visit
// more than `block_budget` (state, ending) pairs is halved. All of it is counted in the
// stats, so a report says when the search was not exhaustive over a whole block.
//
// The objective (Σ stage latencies, ms; SimulatedRuntime, roofline H100) with blocks cut
// along levels only (before), at natural boundaries (now), and at IOS's own boundaries
// (`cut_after` at each cell / stage / module end, from the zoo's node scopes; levels within):
//
//                     default limits                    r = 2, s = 2, 300 states (the CPU benchmark's)
//                     before   now      IOS's   search s   before   now      IOS's
//   NASNet-A Large    2.1645   2.1124   2.1124  4.7 -> 8.3   3.4661   3.2632   3.2632
//   NASNet-A Mobile   0.8981   0.8981   0.9281  3.7 -> 6.7   1.5290   1.5244   1.5244
//   RandWire-WS       0.6634   0.6634   0.6634  1.7 -> 1.5   0.9367   0.9367   0.9367
//   Inception-v3      0.9915   0.9915   0.9915  0.8 -> 0.7   1.2830   1.2830   1.2830
//   SqueezeNet 1.1    0.1963   0.1963   0.1963  0.0          0.1963   0.1963   0.1963
//
// Natural cuts find IOS's NASNet cells by themselves. On NASNet-A Mobile the cells lose to
// cuts along levels (0.8917 against 0.8617 ms over the cells' block), so the level plan stays,
// at the price of the second DP (the search times: a shared 2-core machine, load 10). RandWire's
// stages end at single-node cuts already and are crossed by three or more values inside, so
// IOS's boundaries and natural cuts change nothing there. (`IosBlocks.DISABLED_Measure...`
// in test/schedule/ios_blocks_test.cpp prints this table.) On CpuRuntime with the benchmark's
// limits (stages measured for 5 ms), NASNet-A Mobile's natural plan was rejected as well, and
// trying it measured 20,840 stages instead of 9,636 (search 378 s instead of 199 s, 2 cores
// at load 9); `natural_cuts = false` saves that where a search must be short.
//
// The stages lower to one Schedule: each group on a stream (preferring the stream that ran
// its producer), with the fewest waits that enforce the dependencies — events between
// stages, never a device-wide synchronisation.
#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "autograph/core/precompiled.hpp"
#include "autograph/cost/inference_kernels.hpp"
#include "autograph/schedule/conv_merge.hpp"
#include "autograph/schedule/detail/ios_blocks.hpp"
#include "autograph/schedule/detail/ios_dp.hpp"
#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/measurer.hpp"
#include "autograph/schedule/policy.hpp"
#include "autograph/schedule/waits.hpp"

namespace autograph::schedule {

struct IosOptions {
  std::size_t max_group_kernels = 3;  // r: kernels per group
  std::size_t max_groups = 8;         // s: groups per stage
  bool prune = true;                  // false: r and s unbounded (exhaustive within a block)
  bool operator_merge = true;         // consider merging convolutions that read one input
  bool concurrent = true;             // false: a stage of several groups runs only as one merged convolution (IOS-Merge)
  bool split_at_cuts = true;          // schedule block by block
  // A block's DP visits (states) x (endings per state) pairs; wide blocks have tens of
  // thousands of states and hundreds of endings each. These bounds keep a NASNet search in
  // seconds. On Inception-v3 they cut only the widest blocks (Mixed_7b/c, 9,201 states each)
  // and the DP finds the same objective as the uncut search (0.9915 ms, roofline H100) in a
  // third of its time.
  std::size_t max_block_kernels = 64;      // at most 64 (a block's sets are 64-bit masks)
  std::size_t max_block_states = 3'000;    // DP states (predecessor-closed sets) one block may have
  std::size_t block_budget = 1'000'000;    // (state, ending) pairs one block's DP may visit
  bool natural_cuts = true;                // cut oversized blocks where few values cross before cutting along levels
  std::size_t max_cut_values = 2;          // live values a natural cut may cross (2: a NASNet cell's two inputs)
  std::vector<NodeId> cut_after{};         // nodes (kernels) after which a block must end, as IOS's models name blocks
};

struct IosStage {
  enum class Kind : std::uint8_t { concurrent, merge };
  Kind kind = Kind::concurrent;
  std::vector<std::vector<NodeId>> groups;  // nodes of the scheduled graph, one stream each, in order
  double latency_ms = 0;                    // the stage alone, as the runtime measured it
};

struct IosStats {
  double search_seconds = 0;
  std::size_t blocks = 0;            // blocks the DP ran on (after all splits)
  std::size_t natural_cuts = 0;      // cuts at natural boundaries (in the plans kept) of blocks over max_block_kernels or max_block_states
  std::size_t natural_plans_rejected = 0;  // blocks whose natural cuts lost to cutting along levels alone
  std::size_t level_splits = 0;      // blocks (after natural cuts) still over those limits, cut along their levels
  std::size_t budget_splits = 0;     // blocks halved because their DP exceeded block_budget
  std::size_t states = 0;            // DP states over all blocks
  std::size_t transitions = 0;       // (state, ending) pairs over all blocks
  std::size_t abandoned_transitions = 0;  // spent on blocks that were then halved, or on the plan of a block not kept
  std::size_t stages_measured = 0;   // distinct operator sets whose latency was measured
  std::size_t merges = 0;            // merge stages chosen
  double estimated_ms = 0;           // Σ stage latencies: the DP's objective
};

template <class Set>
struct IosResult {
  Graph<Set> graph;   // the input graph with the chosen convolution merges applied
  Schedule schedule;
  std::vector<IosStage> stages;
  IosStats stats;
  std::vector<std::size_t> block_kernels;  // kernels of each block the DP ran on, in order
  // The stages in the input graph's nodes, before any merge: what Ios::replay() applies to
  // another graph of the same nodes (the model at another batch or for another device).
  std::vector<IosStage> plan;
};

/// The schedule of one stage: each group on its own stream, in the given order.
Schedule stage_schedule(std::vector<std::vector<NodeId>> const& groups);
#if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_SCHEDULE)
AUTOGRAPH_DEFAULTS_INLINE Schedule stage_schedule(std::vector<std::vector<NodeId>> const& groups) {
  Schedule s;
  for (auto const& g : groups) {
    s.streams.emplace_back();
    for (NodeId id : g) s.streams.back().push_back(Launch{id, {}});
  }
  return s;
}
#endif

/// The groups of a stage: the connected pieces of `nodes` (kernels of `dag`), each in
/// topological order, ordered by their first kernel.
std::vector<std::vector<NodeId>> stage_groups(KernelDag const& dag, std::span<NodeId const> nodes);
#if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_SCHEDULE)
AUTOGRAPH_DEFAULTS_INLINE std::vector<std::vector<NodeId>> stage_groups(KernelDag const& dag, std::span<NodeId const> nodes) {
  std::vector<std::uint32_t> ks;
  for (NodeId id : nodes) ks.push_back(dag.index(id));
  std::ranges::sort(ks);
  std::vector<std::size_t> parent(ks.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (std::size_t i = 0; i < ks.size(); ++i)
    for (std::uint32_t p : dag.preds(ks[i]))
      if (auto it = std::ranges::lower_bound(ks, p); it != ks.end() && *it == p) {
        std::size_t a = find(i), b = find(static_cast<std::size_t>(it - ks.begin()));
        parent[std::max(a, b)] = std::min(a, b);
      }
  std::vector<std::vector<NodeId>> groups;
  std::vector<std::size_t> slot(ks.size(), SIZE_MAX);
  for (std::size_t i = 0; i < ks.size(); ++i) {
    std::size_t r = find(i);
    if (slot[r] == SIZE_MAX) {
      slot[r] = groups.size();
      groups.emplace_back();
    }
    groups[slot[r]].push_back(dag.node(ks[i]));
  }
  return groups;
}
#endif

/// Lowers stages to one schedule on `dag` (the graph the stages name).
Schedule lower_stages(KernelDag const& dag, std::vector<IosStage> const& stages);
#if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_SCHEDULE)
AUTOGRAPH_DEFAULTS_INLINE Schedule lower_stages(KernelDag const& dag, std::vector<IosStage> const& stages) {
  std::vector<std::vector<NodeId>> streams;
  for (auto const& stage : stages) {
    std::vector<char> used(streams.size(), 0);
    std::vector<std::size_t> stream_of(stage.groups.size(), SIZE_MAX);
    // First the groups that can follow their producer on its stream (no wait), then the rest.
    for (std::size_t i = 0; i < stage.groups.size(); ++i) {
      auto preds = dag.preds(dag.index(stage.groups[i].front()));
      for (std::size_t t = 0; t < streams.size() && stream_of[i] == SIZE_MAX; ++t)
        if (!used[t] && std::ranges::find(preds, dag.index(streams[t].back())) != preds.end()) {
          stream_of[i] = t;
          used[t] = 1;
        }
    }
    for (std::size_t i = 0; i < stage.groups.size(); ++i) {
      for (std::size_t t = 0; t < streams.size() && stream_of[i] == SIZE_MAX; ++t)
        if (!used[t]) {
          stream_of[i] = t;
          used[t] = 1;
        }
      if (stream_of[i] == SIZE_MAX) {
        stream_of[i] = streams.size();
        streams.emplace_back();
        used.push_back(1);
      }
      auto const& group = stage.groups[i];
      streams[stream_of[i]].insert(streams[stream_of[i]].end(), group.begin(), group.end());
    }
  }
  return insert_waits(dag, streams);
}
#endif

namespace detail {

/// IOS up to the rewrite: blocks, the DP of each, the chosen stages — everything that does
/// not depend on the operator set or the runtime type (stage latencies come in through
/// callbacks), so one copy serves every instantiation of Ios::run.
class IosPlanner {
 public:
  struct Planned {
    bool merge = false;
    std::vector<std::vector<NodeId>> groups;  // nodes of the input graph
    double ms = 0;
  };
  /// Latency (ms) of a stage schedule, less the run's fixed cost.
  using Measure = std::function<double(Schedule const&)>;
  /// Latency (ms) of the given convolutions merged into one, or nullopt when they cannot merge.
  using MergedLatency = std::function<std::optional<double>(std::span<NodeId const>)>;

  IosPlanner(IosOptions const& options, KernelDag const& dag, Measure measure, MergedLatency merged)
      : opt_(options), dag_(dag), measure_(std::move(measure)), merged_(std::move(merged)) {}

  /// Plans every block (defined after the class: see core/precompiled.hpp).
  void run();
  std::vector<Planned> const& planned() const { return planned_; }
  IosStats const& stats() const { return stats_; }
  std::vector<std::size_t> const& block_kernels() const { return block_kernels_; }

 private:
  // Runs of the kernel order between single-node cuts and the caller's cuts, as [from, to).
  std::vector<std::pair<std::size_t, std::size_t>> top_blocks() const {
    std::size_t n = dag_.size();
    std::vector<char> ends_block(n, 0);
    if (n == 0) return {};
    ends_block[n - 1] = 1;
    for (NodeId id : opt_.cut_after) ends_block[dag_.index(id)] = 1;
    if (opt_.split_at_cuts) {
      std::vector<std::size_t> related(n, 0);  // ancestors + descendants
      for (std::size_t a = 0; a < n; ++a)
        for (std::size_t w = 0; w < dag_.words(); ++w)
          for (std::uint64_t bits = dag_.descendants(a)[w]; bits; bits &= bits - 1) {
            ++related[a];
            ++related[w * 64 + static_cast<std::size_t>(std::countr_zero(bits))];
          }
      for (std::size_t k = 0; k < n; ++k)
        if (related[k] == n - 1) ends_block[k] = 1;
    }
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (std::size_t lo = 0, k = 0; k < n; ++k)
      if (ends_block[k]) {
        out.emplace_back(lo, k + 1);
        lo = k + 1;
      }
    return out;
  }

  static std::vector<std::uint32_t> run_of(std::size_t from, std::size_t to) {
    std::vector<std::uint32_t> ks(to - from);
    std::iota(ks.begin(), ks.end(), static_cast<std::uint32_t>(from));
    return ks;
  }

  // Plans the run [from, to) cut at `cuts` (ascending, inside it), each piece cut further
  // along its levels where it does not fit the limits; returns the objective.
  double plan_pieces(std::size_t from, std::size_t to, std::vector<std::size_t> cuts) {
    std::size_t first = planned_.size();
    cuts.push_back(to);
    for (std::size_t end : cuts) {
      auto pieces = split_to_fit(run_of(from, end));
      if (pieces.size() > 1) stats_.level_splits += 1;
      for (auto const& piece : pieces) schedule_block(piece);
      from = end;
    }
    double ms = 0;
    for (std::size_t i = first; i < planned_.size(); ++i) ms += planned_[i].ms;
    return ms;
  }

  // One block of the kernel order: as it is when it fits, else cut at its natural boundaries
  // and, separately, along its levels alone; the plan with the smaller objective stays (a
  // natural cut can also lose: NASNet cells read the cell before the previous one, and a cut
  // along levels keeps those reads beside the previous cell).
  void plan_block(std::size_t from, std::size_t to, std::vector<std::uint32_t> const& live) {
    auto fits = [&](std::size_t a, std::size_t b) { return fits_limits(run_of(a, b)); };
    std::vector<std::size_t> cuts;
    if (opt_.natural_cuts && !fits(from, to)) cuts = natural_cuts(from, to, live, opt_.max_cut_values, fits);
    if (cuts.empty()) {
      plan_pieces(from, to, {});
      return;
    }
    std::size_t planned = planned_.size(), sizes = block_kernels_.size();
    IosStats const start = stats_;
    double natural = plan_pieces(from, to, cuts);
    std::vector<Planned> natural_planned(planned_.begin() + static_cast<std::ptrdiff_t>(planned), planned_.end());
    std::vector<std::size_t> natural_sizes(block_kernels_.begin() + static_cast<std::ptrdiff_t>(sizes), block_kernels_.end());
    IosStats const natural_stats = stats_;
    planned_.resize(planned);
    block_kernels_.resize(sizes);
    stats_ = start;
    double levels = plan_pieces(from, to, {});
    // The plan not kept still measured its stages and spent its transitions.
    auto spent_on = [&](IosStats const& lost) {
      stats_.stages_measured += lost.stages_measured - start.stages_measured;
      stats_.abandoned_transitions += lost.transitions - start.transitions + lost.abandoned_transitions - start.abandoned_transitions;
    };
    if (natural < levels) {
      IosStats const level_stats = stats_;
      stats_ = natural_stats;
      spent_on(level_stats);
      stats_.natural_cuts += cuts.size();
      planned_.resize(planned);
      planned_.insert(planned_.end(), natural_planned.begin(), natural_planned.end());
      block_kernels_.resize(sizes);
      block_kernels_.insert(block_kernels_.end(), natural_sizes.begin(), natural_sizes.end());
    } else {
      spent_on(natural_stats);
      stats_.natural_plans_rejected += 1;
    }
  }

  // At most max_block_kernels kernels and max_block_states DP states.
  bool fits_limits(std::vector<std::uint32_t> const& ks) {
    if (ks.size() > opt_.max_block_kernels) return false;
    masks(ks, succ_, pred_, desc_);
    return count_states(pred_, opt_.max_block_states + 1) <= opt_.max_block_states;
  }

  void schedule_block(std::vector<std::uint32_t> const& ks) {
    std::vector<Mask> succ, pred, desc;
    masks(ks, succ, pred, desc);
    std::size_t r = opt_.prune ? opt_.max_group_kernels : 64, s = opt_.prune ? opt_.max_groups : 64;
    IosBlockDp dp(succ, pred, desc, r, s, opt_.block_budget, [&](Mask e) { return stage_cost(ks, e, succ, pred); });
    try {
      dp.solve(dp.full());
    } catch (DpBudgetExceeded const&) {
      ++stats_.budget_splits;
      stats_.abandoned_transitions += dp.transitions() - 1;
      stats_.stages_measured += dp.stages_measured();
      for (auto const& h : halves(ks)) schedule_block(h);
      return;
    }
    ++stats_.blocks;
    block_kernels_.push_back(ks.size());
    stats_.states += dp.states();
    stats_.transitions += dp.transitions();
    stats_.stages_measured += dp.stages_measured();
    for (Mask e : dp.stages(dp.full())) {
      auto choice = dp.stage(e);
      Planned p{choice.merge, {}, choice.ms};
      for (Mask c : components(e, succ, pred)) {
        p.groups.emplace_back();
        for (Mask b = c; b; b &= b - 1) p.groups.back().push_back(dag_.node(ks[static_cast<std::size_t>(std::countr_zero(b))]));
      }
      planned_.push_back(std::move(p));
    }
  }

  // Direct successors, direct predecessors and descendants of each kernel within `ks`
  // (sorted kernel indices, so local numbering is topological).
  void masks(std::vector<std::uint32_t> const& ks, std::vector<Mask>& succ, std::vector<Mask>& pred, std::vector<Mask>& desc) const {
    std::size_t m = ks.size();
    succ.assign(m, 0);
    pred.assign(m, 0);
    desc.assign(m, 0);
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t j = i + 1; j < m; ++j)
        if (dag_.reaches(ks[i], ks[j])) desc[i] |= bit(j);
      for (std::uint32_t v : dag_.succs(ks[i]))
        if (auto it = std::ranges::lower_bound(ks, v); it != ks.end() && *it == v) {
          auto j = static_cast<std::size_t>(it - ks.begin());
          succ[i] |= bit(j);
          pred[j] |= bit(i);
        }
    }
  }

  // The longest prefixes, in level order, within max_block_kernels and max_block_states
  // (a prefix's state count only grows with its length, so a binary search finds each).
  std::vector<std::vector<std::uint32_t>> split_to_fit(std::vector<std::uint32_t> const& ks) const {
    auto order = level_order(ks);
    std::vector<std::vector<std::uint32_t>> pieces;
    std::vector<Mask> succ, pred, desc;
    auto piece_at = [&](std::size_t from, std::size_t len) {
      std::vector<std::uint32_t> piece(order.begin() + static_cast<std::ptrdiff_t>(from),
                                       order.begin() + static_cast<std::ptrdiff_t>(from + len));
      std::ranges::sort(piece);
      return piece;
    };
    auto fits = [&](std::size_t from, std::size_t len) {
      masks(piece_at(from, len), succ, pred, desc);
      return count_states(pred, opt_.max_block_states + 1) <= opt_.max_block_states;
    };
    for (std::size_t from = 0; from < order.size();) {
      std::size_t lo = 1, hi = std::min(order.size() - from, opt_.max_block_kernels);
      while (lo < hi) {  // the largest length that fits; a single kernel always does
        std::size_t mid = (lo + hi + 1) / 2;
        if (fits(from, mid)) lo = mid;
        else hi = mid - 1;
      }
      pieces.push_back(piece_at(from, lo));
      from += lo;
    }
    return pieces;
  }

  // Orders kernels by level within the set (longest path from the set's sources), then by
  // index: every prefix of that order is closed under predecessors, so pieces cut from it
  // run one after another.
  std::vector<std::uint32_t> level_order(std::vector<std::uint32_t> const& ks) const {
    std::vector<std::size_t> level(ks.size(), 0);
    for (std::size_t i = 0; i < ks.size(); ++i)
      for (std::uint32_t p : dag_.preds(ks[i]))
        if (auto it = std::ranges::lower_bound(ks, p); it != ks.end() && *it == p)
          level[i] = std::max(level[i], level[static_cast<std::size_t>(it - ks.begin())] + 1);
    std::vector<std::size_t> order(ks.size());
    std::iota(order.begin(), order.end(), 0);
    std::ranges::stable_sort(order, {}, [&](std::size_t i) { return level[i]; });
    std::vector<std::uint32_t> out;
    for (std::size_t i : order) out.push_back(ks[i]);
    return out;
  }

  // The first and second half of `ks` in level order.
  std::vector<std::vector<std::uint32_t>> halves(std::vector<std::uint32_t> const& ks) const {
    auto order = level_order(ks);
    auto mid = order.begin() + static_cast<std::ptrdiff_t>((order.size() + 1) / 2);
    std::vector<std::uint32_t> a(order.begin(), mid), b(mid, order.end());
    std::ranges::sort(a);
    std::ranges::sort(b);
    return {a, b};
  }

  // The stage's latency: its groups side by side (each on a stream), or merged when that is
  // faster. The schedule is built in place to keep the DP's inner loop allocation-free.
  StageChoice stage_cost(std::vector<std::uint32_t> const& ks, Mask e, std::vector<Mask> const& succ, std::vector<Mask> const& pred) {
    components(e, succ, pred, comps_);
    stage_.streams.resize(comps_.size());
    for (std::size_t i = 0; i < comps_.size(); ++i) {
      auto& stream = stage_.streams[i];
      stream.clear();
      for (Mask b = comps_[i]; b; b &= b - 1) stream.push_back(Launch{dag_.node(ks[static_cast<std::size_t>(std::countr_zero(b))]), {}});
    }
    // IOS-Merge (concurrent off) runs a stage of several groups only merged.
    StageChoice best{!opt_.concurrent && comps_.size() > 1 ? std::numeric_limits<double>::infinity() : measure_(stage_), false};
    if (opt_.operator_merge && merged_ && std::popcount(e) >= 2 && comps_.size() == static_cast<std::size_t>(std::popcount(e))) {
      convs_.clear();
      for (auto const& stream : stage_.streams) convs_.push_back(stream.front().node);
      if (auto merged = merged_(convs_); merged && *merged < best.ms) best = {*merged, true};
    }
    return best;
  }

  IosOptions const& opt_;
  KernelDag const& dag_;
  Measure measure_;
  MergedLatency merged_;
  IosStats stats_;
  std::vector<Planned> planned_;
  std::vector<std::size_t> block_kernels_;
  std::vector<Mask> succ_, pred_, desc_;  // scratch of fits_limits()
  std::vector<Mask> comps_;  // scratch of stage_cost()
  std::vector<NodeId> convs_;
  Schedule stage_;
};

#if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_SCHEDULE)
AUTOGRAPH_DEFAULTS_INLINE void IosPlanner::run() {
  std::vector<std::uint32_t> live;
  if (opt_.natural_cuts) live = live_across(dag_);
  for (auto [from, to] : top_blocks()) plan_block(from, to, live);
}
#endif

}  // namespace detail

/// A stage's latency: the time of a run with it less the time of an empty run (a graph
/// launch's fixed cost), at least 0. Measured, both are noisy, and a difference below 0 would
/// make the DP prefer more stages for nothing (and a merge that gains nothing look faster).
inline double stage_latency(double with_stage_ms, double empty_ms) { return std::max(0.0, with_stage_ms - empty_ms); }

/// How IOS reaches a runtime, whatever its type: `prepare(graph)` gives the latency in ms of
/// any schedule of that graph (the runtime prepares the graph once: lowering, indexing). With
/// it the search is compiled once per operator set rather than once per runtime type.
template <class Set>
using IosPrepare = std::function<std::function<double(Schedule const&)>(Graph<Set> const&)>;

struct Ios {
  static constexpr std::string_view name = "ios";
  IosOptions options;

  template <class Set, class R>
  ScheduledGraph<Set> operator()(Graph<Set> const& g, R& runtime) const {
    auto r = run(g, runtime);
    return {std::move(r.graph), std::move(r.schedule), std::string(name), r.stats.search_seconds};
  }

  /// The stages, the rewritten graph, the lowered schedule and the search's statistics.
  /// @throws ScheduleError for options out of range.
  template <class Set, class R>
    requires Measurer<R, Set>
  IosResult<Set> run(Graph<Set> const& g, R& runtime) const {
    return run_with(g, IosPrepare<Set>([&runtime](Graph<Set> const& graph) {
                      // shared: a prepared graph may own what cannot be copied (the simulator's DAG)
                      auto p = std::make_shared<decltype(prepare(runtime, graph))>(prepare(runtime, graph));
                      return std::function<double(Schedule const&)>([p](Schedule const& s) { return p->measure(s); });
                    }));
  }
  /// run() with the runtime reached through `prepare`.
  template <class Set>
  IosResult<Set> run_with(Graph<Set> const& g, IosPrepare<Set> const& prepare) const;

  /// A plan made for one graph (IosResult::plan) run on `g`, a graph of the same nodes: the
  /// same model built at another batch size or searched for another device, as the IOS work
  /// runs a schedule optimized for one batch or GPU on another (its Table 4.2). Applies the
  /// plan's merges to `g` and lowers its stages; the stages keep the plan's latencies (those
  /// of the graph it was made for). @throws ScheduleError when the plan names a node that is
  /// not a kernel of `g`, runs one twice, leaves one out, or merges convolutions `g` cannot.
  template <class Set>
  static IosResult<Set> replay(Graph<Set> const& g, std::span<IosStage const> plan);

 private:
  template <class Set>
  static constexpr bool can_merge = Set::template contains<Conv2D> && Set::template contains<Enlarge> &&
                                    Set::template contains<Concat> && Set::template contains<Split> &&
                                    Set::template contains<Input> && Set::template contains<Weight>;

  // The merged convolution and its Split, measured on a graph of their own.
  template <class Set>
  static double merged_latency(Graph<Set> const& g, IosPrepare<Set> const& prepare, std::span<NodeId const> convs, ConvMergePlan const& plan);
};

template <class Set>
double Ios::merged_latency(Graph<Set> const& g, IosPrepare<Set> const& prepare, std::span<NodeId const> convs, ConvMergePlan const& plan) {
  Graph<Set> tiny;
  auto const& x = g.desc(g[convs[0]].inputs[0]);
  auto const& w0 = g.desc(g[convs[0]].inputs[1]);
  std::int64_t k = std::accumulate(plan.out_channels.begin(), plan.out_channels.end(), std::int64_t{0});
  NodeId in = tiny.add(Input{x, "x"}, std::initializer_list<Value>{}, "x");
  NodeId w = tiny.add(Weight{{Shape{k, w0.shape[1], plan.kernel[0], plan.kernel[1]}, w0.dtype}, nullptr, 1, WeightInit::fan_in},
                      std::initializer_list<Value>{}, "w");
  std::vector<Value> ins{{in, 0}, {w, 0}};
  if (plan.bias) ins.push_back({tiny.add(Weight{{Shape{k}, w0.dtype}, nullptr, 2, WeightInit::uniform}, std::initializer_list<Value>{}, "b"), 0});
  NodeId conv = tiny.add(plan.op, std::span<Value const>(ins), "merged");
  NodeId split = tiny.add(Split{1, plan.out_channels}, std::initializer_list<Value>{Value{conv, 0}}, "split");
  std::vector<Value> outs;
  for (std::uint32_t i = 0; i < plan.out_channels.size(); ++i) outs.push_back({split, i});
  tiny.set_outputs(outs);
  KernelDag tiny_dag(tiny);
  std::vector<NodeId> kernels(tiny_dag.nodes().begin(), tiny_dag.nodes().end());
  auto measure = prepare(tiny);
  return stage_latency(measure(stage_schedule({kernels})), measure(Schedule{}));
}

template <class Set>
IosResult<Set> Ios::run_with(Graph<Set> const& g, IosPrepare<Set> const& prepare) const {
  if (options.max_block_kernels < 1 || options.max_block_kernels > 64)
    throw ScheduleError("IOS: max_block_kernels must be in 1..64, got " + std::to_string(options.max_block_kernels));
  if (options.block_budget < 1 || options.max_block_states < 1)
    throw ScheduleError("IOS: block_budget and max_block_states must be at least 1");
  auto t0 = std::chrono::steady_clock::now();
  KernelDag dag(g);
  for (NodeId id : options.cut_after) {
    if (!g.contains(id)) throw ScheduleError("IOS: cut_after names node " + std::to_string(id) + ", which is not in the graph");
    if (!dag.is_kernel(id)) throw ScheduleError("IOS: cut_after names " + g.label(id) + ", which launches no kernel");
  }
  auto measure = prepare(g);
  double base = measure(Schedule{});
  auto constant = weight_only_nodes(g);
  detail::IosPlanner::MergedLatency merged;
  if constexpr (can_merge<Set>) {
    merged = [&](std::span<NodeId const> convs) -> std::optional<double> {
      auto plan = plan_conv_merge(g, convs, constant);
      if (!plan) return std::nullopt;
      return merged_latency(g, prepare, convs, *plan);
    };
  }
  detail::IosPlanner planner(options, dag, [&](Schedule const& s) { return stage_latency(measure(s), base); }, std::move(merged));
  planner.run();

  std::vector<IosStage> plan;
  for (auto const& p : planner.planned())
    plan.push_back({p.merge ? IosStage::Kind::merge : IosStage::Kind::concurrent, p.groups, p.ms});
  IosResult<Set> res = replay(g, std::span<IosStage const>(plan));
  IosStats applied = res.stats;
  res.stats = planner.stats();
  res.stats.merges += applied.merges;
  res.stats.estimated_ms += applied.estimated_ms;
  res.block_kernels = planner.block_kernels();
  res.stats.search_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

template <class Set>
IosResult<Set> Ios::replay(Graph<Set> const& g, std::span<IosStage const> plan) {
  KernelDag dag(g);
  std::vector<char> runs(dag.size(), 0);
  for (auto const& st : plan)
    for (auto const& grp : st.groups)
      for (NodeId id : grp) {
        if (!g.contains(id) || !dag.is_kernel(id))
          throw ScheduleError("IOS: the plan names node " + std::to_string(id) + ", which is not a kernel of this graph (a plan made for another graph?)");
        if (runs[dag.index(id)]++) throw ScheduleError("IOS: the plan runs " + g.label(id) + " twice");
      }
  for (std::uint32_t k = 0; k < dag.size(); ++k)
    if (!runs[k]) throw ScheduleError("IOS: the plan does not run " + g.label(dag.node(k)) + " (a plan made for another graph?)");

  IosResult<Set> res{g, {}, {}, {}, {}, {plan.begin(), plan.end()}};
  for (IosStage const& p : plan) {
    IosStage st = p;
    res.stats.estimated_ms += p.latency_ms;
    if (p.kind == IosStage::Kind::merge) {
      if constexpr (can_merge<Set>) {
        std::vector<NodeId> convs;
        for (auto const& grp : p.groups) convs.insert(convs.end(), grp.begin(), grp.end());
        auto merge = plan_conv_merge(res.graph, std::span<NodeId const>(convs), weight_only_nodes(res.graph));
        if (!merge) throw ScheduleError("IOS: the plan merges " + g.label(convs.front()) + " with its siblings, which cannot merge in this graph");
        auto [conv, split] = merge_convs(res.graph, std::span<NodeId const>(convs), *merge);
        st.groups = {{conv, split}};
        ++res.stats.merges;
      } else {
        throw ScheduleError("IOS: the plan merges convolutions, which this graph's operator set cannot express");
      }
    }
    res.stages.push_back(std::move(st));
  }
  KernelDag lowered(res.graph);
  for (auto& st : res.stages) {  // a contiguous Split after a merge is a view, not a kernel
    for (auto& grp : st.groups) std::erase_if(grp, [&](NodeId id) { return !lowered.is_kernel(id); });
    std::erase_if(st.groups, [](auto const& grp) { return grp.empty(); });
  }
  std::erase_if(res.stages, [](IosStage const& st) { return st.groups.empty(); });
  res.schedule = lower_stages(lowered, res.stages);
  return res;
}

#if defined(AUTOGRAPH_PRECOMPILED)
extern template IosResult<BuiltinOps> Ios::run_with<BuiltinOps>(Graph<BuiltinOps> const&, IosPrepare<BuiltinOps> const&) const;  // src/defaults/schedule.cpp
extern template IosResult<BuiltinOps> Ios::replay<BuiltinOps>(Graph<BuiltinOps> const&, std::span<IosStage const>);  // src/defaults/schedule.cpp
#endif

}  // namespace autograph::schedule
