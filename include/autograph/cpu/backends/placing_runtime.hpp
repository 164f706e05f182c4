#pragma once
// PlacingCpuRuntime<Backends<...>>: the backend placement as a policy of the CPU runtime
// (issue 17). measure(g) places `g` on the backends by Collage's op-level DP (place.hpp: Eq. 3
// over the costs of the persistent cost database, so a group measured once on this machine is
// never measured again) and measures the placed graph on a CpuRuntime, under that runtime's
// schedule policy. It models the runtime concepts the Optimizer uses, so one line runs
// AutoGraph's substitution search, the stream schedule and the placement together:
//
//   using All = cpu::Backends<cpu::backends::OneDnn, cpu::backends::Blas, cpu::backends::OwnKernels>;
//   cpu::PlacingCpuRuntime<All> cpu({}, {.database = "costs.json"});
//   Optimizer<Graph<>, rules::Default, MixedCriticalPath<0.25>, cpu::PlacingCpuRuntime<All>> opt(cpu);
//   auto best = opt.optimize(g);
//   auto const& placed = opt.runtime().placed(best.graph);   // which backend runs each node
//
// cpu::CpuRuntime itself stays what it was: every op through the runtime's own lowering (oneDNN
// and our kernels), no placement. Every graph a search measures is placed once: the placement is
// kept by the graph's structural hash (as FasterOf keeps its schedule choice), so the search's
// re-measurements and comparisons of a graph pay for its placement once.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "autograph/cpu/backends/place.hpp"
#include "autograph/graph/structural_hash.hpp"
#include "autograph/runtime/noise.hpp"

namespace autograph::cpu {

struct PlacingOptions {
  std::filesystem::path database = "autograph-placement-costs.json";  // the cost database (created when missing)
  std::vector<std::string> backends = {};  // the backends placements may use (names); empty: all. Checked by the constructor
  // Milliseconds of timed runs per group measurement: a model has hundreds of groups, each
  // timed twice (one kernel, `copies` kernels; place.hpp), so a group's backends sample
  // together until each has had about twice this (at least 3 samples of 3 runs each), and a
  // reorder's median stops at this (at least 5 runs).
  double group_budget_ms = 20;
  int copies = 3;
  placement::DpOptions dp = {};  // the op-level DP's options (its beam, epsilon in microseconds)
  std::function<void(placement::CostProgress const&)> progress = {};
  // The single-backend placements (cpu::single_backends) every graph's DP placement must beat:
  // when given, placed(g) is place_guarded()'s choice, measured on this runtime — the best of
  // them unless the DP's placement measures faster beyond noise — so a search on this runtime
  // is never slower than the best single backend by construction. Costs per distinct graph:
  // one placement per single backend and a comparison each. Empty: the DP's placement.
  std::vector<SingleBackend> singles = {};
};

template <class BackendList, class Policy = StreamsOrOneStream>
class PlacingCpuRuntime;

template <class... B, class Policy>
class PlacingCpuRuntime<Backends<B...>, Policy> {
 public:
  using Clock = std::chrono::steady_clock;
  using Runtime = BasicCpuRuntime<Policy>;

  /// `options` configure the runtime that measures the placed graphs; groups are measured on a
  /// copy of it with `placing.group_budget_ms` per median.
  /// @throws Error for a backend name not in B..., naming the known ones, or a database file
  /// that is not one.
  explicit PlacingCpuRuntime(CpuRuntimeOptions options = {}, PlacingOptions placing = {})
      : cpu_(options), profiler_(profiler_options(options, placing)), state_(std::make_shared<State>(placing, cpu_device_name(cpu_))) {
    std::vector<std::string> known{std::string(B::name)...};
    if (placing.copies < 2) throw Error("PlacingCpuRuntime: copies must be at least 2, got " + std::to_string(placing.copies));
    for (auto const& want : placing.backends)
      if (std::ranges::find(known, want) == known.end()) throw Error("PlacingCpuRuntime: no backend called '" + want + "' (known: " + names_text(known) + ")");
    for (auto const& single : placing.singles)
      for (auto const& want : single.backends)
        if (std::ranges::find(known, want) == known.end())
          throw Error("PlacingCpuRuntime: single backend '" + single.label + "' names no backend called '" + want + "' (known: " + names_text(known) + ")");
  }

  /// The CPU runtime's kind, and which backends it places on.
  std::string kind() const {
    auto const& allowed = state_->options.backends;
    std::vector<std::string> names = allowed.empty() ? std::vector<std::string>{std::string(B::name)...} : allowed;
    return cpu_.kind() + ", placed on " + names_text(names) + " by Collage's op-level DP" +
           (state_->options.singles.empty() ? "" : ", kept only when faster than the best single backend beyond noise");
  }
  int cores() const { return cpu_.cores(); }
  /// The cost model a search ranks candidates with before measuring them (the CPU runtime's:
  /// estimates of unplaced graphs; the placement is measured, never estimated).
  MeasuredCost const& cost_model() const { return cpu_.cost_model(); }
  /// From `t` on, whole-graph measurements stop at their minimum. Group measurements do not:
  /// they go into the database for every later run, so they keep their budget.
  void set_deadline(Clock::time_point t) { cpu_.set_deadline(t); }
  /// Seconds spent measuring whole graphs and groups (by this runtime and its copies).
  double measuring_seconds() const { return cpu_.measuring_seconds() + profiler_.measuring_seconds(); }
  std::size_t timed_runs() const { return cpu_.timed_runs() + profiler_.timed_runs(); }
  /// Seconds spent placing (generating candidates and the DP), group measurements excluded.
  double placing_seconds() const { return state_->placing_seconds; }
  /// Groups measured into the database so far (the ones it knew are not).
  std::size_t groups_measured() const { return state_->groups_measured; }
  /// Distinct graphs placed so far.
  std::size_t graphs_placed() const { return state_->placed.size(); }
  /// DP states settled over every placement so far, and the placements whose DP the beam cut
  /// (DpOptions::beam: not proven cheapest).
  std::size_t dp_states() const { return state_->dp_states; }
  std::size_t placements_cut() const { return state_->placements_cut; }
  placement::CostDatabase const& database() const { return state_->db; }

  /// The op-level placement of `g`, or with `singles` the one place_guarded() keeps (kept by
  /// structural hash: placed once per graph). @throws Error naming a node no allowed backend runs.
  PlacedGraph const& placed(Graph<BuiltinOps> const& g) {
    std::uint64_t key = structural_hash(g);
    auto found = state_->placed.find(key);
    if (found != state_->placed.end()) return *found->second;
    // Assigned member by member: GCC 12 at -O3 takes the designated initializer's defaulted
    // std::function members for "maybe uninitialized" (-Wmaybe-uninitialized).
    PlaceOptions o;
    o.backends = state_->options.backends;
    o.copies = state_->options.copies;
    o.dp = state_->options.dp;
    o.progress = state_->options.progress;
    auto const& singles = state_->options.singles;
    auto p = std::make_shared<PlacedGraph>(singles.empty() ? place(Backends<B...>{}, g, profiler_, state_->db, o)
                                                           : place_guarded(Backends<B...>{}, g, profiler_, cpu_, state_->db, singles, o));
    state_->placing_seconds += p->generate_seconds + p->dp_seconds;
    state_->groups_measured += p->costs.measured;
    state_->dp_states += p->placement.states;
    state_->placements_cut += p->placement.states_cut > 0 ? 1 : 0;
    return *state_->placed.emplace(key, std::move(p)).first->second;
  }
  /// The backend running each node of `g`, by node id of `g` (empty for sources and constants):
  /// what the optimizer's report and DOT picture show.
  std::vector<std::string> node_backends(Graph<BuiltinOps> const& g) {
    auto const& p = placed(g).placement;
    std::vector<std::string> r(g.id_bound());
    for (auto const& pg : p.groups)
      for (NodeId n : pg.group.nodes) r[n] = p.backend_of(pg);
    return r;
  }

  /// Latency in ms of `g` placed, under the CPU runtime's schedule policy.
  double measure(Graph<BuiltinOps> const& g) { return cpu_.measure(placed(g).graph); }
  /// measure(g), stopping once the placed graph is clearly slower than `bound_ms`.
  double screen(Graph<BuiltinOps> const& g, double bound_ms) { return cpu_.screen(placed(g).graph, bound_ms); }
  /// Whether `challenger` placed runs faster than `incumbent` placed beyond noise (interleaved runs).
  Comparison compare(Graph<BuiltinOps> const& incumbent, Graph<BuiltinOps> const& challenger, CompareOptions options = {}) {
    Graph<PlacedOps> const& a = placed(incumbent).graph;
    return cpu_.compare(a, placed(challenger).graph, options);
  }
  /// The schedule the placed `g` runs with (under FasterOf, chosen by measuring).
  CpuPlan<PlacedOps> plan(Graph<BuiltinOps> const& g) { return cpu_.plan(placed(g).graph); }
  CpuPlan<PlacedOps> replan(Graph<BuiltinOps> const& g) { return cpu_.replan(placed(g).graph); }
  /// An executable of the placed `g` for results: every weight must have data.
  CpuExecutable compile(Graph<BuiltinOps> const& g, Schedule const& s, ExecOptions exec = {}) { return cpu_.compile(placed(g).graph, s, exec); }

 private:
  struct State {
    PlacingOptions options;
    placement::CostDatabase db;
    std::unordered_map<std::uint64_t, std::shared_ptr<PlacedGraph const>> placed;
    double placing_seconds = 0;
    std::size_t groups_measured = 0;
    std::size_t dp_states = 0, placements_cut = 0;
    State(PlacingOptions o, std::string device) : options(std::move(o)), db(options.database, std::move(device)) {}
  };
  static CpuRuntimeOptions profiler_options(CpuRuntimeOptions o, PlacingOptions const& placing) {
    o.budget_ms = placing.group_budget_ms;
    return o;
  }
  static std::string names_text(std::vector<std::string> const& names) {
    std::string s;
    for (auto const& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  }

  Runtime cpu_;
  Runtime profiler_;
  std::shared_ptr<State> state_;  // shared by copies: one database, one memo of placements
};

}  // namespace autograph::cpu
