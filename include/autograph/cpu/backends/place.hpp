#pragma once
// Op-level placement on the CPU runtime (Collage §4.2 on this machine): the backends' candidate
// groups (placement/pattern_generator.hpp), each (backend, group signature) measured once per
// device into the cost database, the cheapest cover by the DP of Eq. 3, and the placed graph:
// each group one node — the built-in op a RewritingCpuBackend turns it into, or a BackendGroup
// whose kernel the backend builds — so schedules and the runtime see a graph like any other.
//
//   placement::CostDatabase db("costs.json", cpu_device_name(cpu));
//   auto placed = place(Backends<OneDnn, Blas, OwnKernels>{}, g, cpu, db);
//   cpu.measure(placed.graph);   // placed.placement says which backend runs each node
//
// A group's cost is the marginal time of one more of its kernels in a run, as the profiler
// measures an op (cpu/profiler.hpp): the group's node alone and `copies` independent copies on
// one stream are timed, and (T(copies) - T(1)) / (copies - 1) cancels the run's fixed cost.
// The backends that claim one group signature are timed together, interleaved: each sample is
// a block of runs of the lone kernel and then of the copies, back to back, and the backends take
// turns sample by sample (placement::InterleavedSampling), so the machine's speed at the moment
// weighs on all of them alike. Each copy reads weights of its own, and when the model's
// weights exceed the last-level cache the caches are evicted before every run (ColdCache,
// WeightsWhenTimed): such a model reads every layer's weights from memory, and timed with them
// cached, BERT's linear layers ranked oneDNN first and the model ran faster on OpenBLAS.
//
// Timed in the layout the model gives it: in a model the runtime keeps 4-D tensors
// channels-last between the kernels that take them (cpu/lower.hpp), so a group is timed with its
// inputs and outputs channels-last where its kernel takes and gives that layout
// (BoundaryChannelsLast). Timed with plain inputs and outputs, as the first version did, a oneDNN
// depthwise convolution of NASNet-A Mobile ([1,11,111,111], 5x5, stride 2) measured 1101 us
// against 144 us between channels-last neighbours (the reorders at 115-151 us each, a loaded
// 2-core VM), while our plain direct kernel measured 1053 us: the DP chose our kernel, and the
// model paid the reorders around it.
//
// Layout conversions are charged on edges, by the DP (placement/layout_model.hpp): a value lies
// channels-last only when its producer gives it so and every reader takes it so, and each end
// that wanted channels-last and meets a plain value costs one reorder of its shape (measured
// once per shape, kept in the database as backend "reorder"). The second version charged each
// plain kernel a reorder per 4-D tensor it read or wrote, as if every neighbour were
// channels-last: a chain of plain kernels paid at every kernel although the runtime converts at
// its ends, and a channels-last kernel reading a plain graph input or writing a graph output
// paid nothing. On four mixed placements of NASNet-A Mobile (test/cpu_backends/
// place_conversions_test.cpp, random costs) it counted 57, 39, 43 and 57 reorders where the
// lowered models convert 54, 36, 40 and 52 ends — the edge charge's counts, exactly.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "autograph/cost/op_cost_model.hpp"
#include "autograph/cpu/backends/cpu_backend.hpp"
#include "autograph/cpu/cold_cache.hpp"
#include "autograph/cpu/runtime.hpp"
#include "autograph/placement/backend_registry.hpp"
#include "autograph/placement/candidate_costs.hpp"
#include "autograph/placement/measured_choice.hpp"
#include "autograph/placement/op_level_dp.hpp"
#include "autograph/placement/pattern_generator.hpp"
#include "autograph/placement/placed_graph.hpp"
#include "autograph/runtime/profiling.hpp"
#include "autograph/schedule/sequential.hpp"

namespace autograph::cpu {

#if defined(AUTOGRAPH_CPU_PRECOMPILED)
// Compiled once in src/cpu/placed_ops.cpp.
extern template std::shared_ptr<CpuGraph const> lower<PlacedOps>(Graph<PlacedOps> const&, LowerOptions const&);
extern template double CpuRuntime::measure<PlacedOps>(Graph<PlacedOps> const&);
extern template double CpuRuntime::measure<PlacedOps>(Graph<PlacedOps> const&, Schedule const&);
extern template Comparison CpuRuntime::compare<PlacedOps>(Graph<PlacedOps> const&, Graph<PlacedOps> const&, CompareOptions);
extern template CpuExecutable CpuRuntime::compile<PlacedOps>(Graph<PlacedOps> const&, Schedule const&, ExecOptions);
#endif

using placement::Backends;

/// Which revision of the runtime's own kernels the costs were measured with: raised whenever a
/// built-in kernel changes what it runs, so that a database measured before is not read for
/// kernels that are no longer there. 2: inference BatchNorm and 1x1 pooling became our own
/// loops (oneDNN 2.6.3 ran some of both in its generic C++ kernels, up to 30x slower).
inline constexpr int cpu_kernels_revision = 2;

/// The cost database's name for this machine and runtime: the processor, the cores used, how
/// groups are timed (between channels-last neighbours, a signature's backends interleaved,
/// conversions charged on edges, see the file comment) and the kernels' revision; the costs of
/// earlier versions — timed with plain inputs and outputs, with a plain kernel's reorders in
/// their cost, each backend at its own moment, or with other kernels — stay under their names
/// and are not read.
template <class Policy>
std::string cpu_device_name(BasicCpuRuntime<Policy> const& cpu) {
  return cpu_model_name() + " (" + std::to_string(cpu.cores()) + (cpu.cores() == 1 ? " core" : " cores") +
         ", groups timed between channels-last neighbours with their backends interleaved, reorders on edges timed paired, kernels r" +
         std::to_string(cpu_kernels_revision) + ")";
}

/// Where a group's weights are when its runs are timed. As in the model: read from memory
/// (ColdCache before every run, each copy with weights of its own) when the model's weights
/// exceed the last-level cache, so that they cannot stay cached between its runs; cached
/// otherwise. The costs of the two are kept apart in the database (" | weights from memory").
enum class WeightsWhenTimed { cached, from_memory, as_in_the_model };

struct PlaceOptions {
  std::vector<std::string> backends = {};  // the backends the placement may use (names); empty: all
  int copies = 3;                     // kernels in the "many" run of a group's measurement; at least 2
  int runs_per_sample = 3;            // runs of each of the two executables behind one sample (their medians' difference)
  WeightsWhenTimed weights = WeightsWhenTimed::as_in_the_model;
  // Rounds of a signature's interleaved samples (placement::InterleavedSampling; place() makes
  // the rest of it). Its budget per backend is twice the runtime's budget_ms
  // (CpuRuntimeOptions): the lone kernel's and the copies' runs, each as much as one
  // measurement of the runtime gets.
  int rounds = 15;
  int min_rounds = 3;
  placement::DpOptions dp = {};       // epsilon in microseconds
  std::function<void(placement::CostProgress const&)> progress = {};
};

/// The reorders of a placement's layout conversions (measure_reorders()).
struct MeasuredReorders {
  std::map<std::string, double> us;  // by Shape::to_string(), microseconds
  std::size_t measured = 0;          // of which measured now (the others came from the database)
  double seconds = 0;
};

struct PlacedGraph {
  std::string guard;                        // place_guarded(): which placement it kept, and the medians
  std::string kept;                         // place_guarded(): the label of the placement kept
  std::vector<placement::Decision> decisions;  // place_guarded(): the comparisons behind it
  Graph<PlacedOps> graph;
  std::vector<std::string> node_backend;    // by node id of `graph`: the backend running it (empty: not a kernel)
  placement::Placement placement;           // costs in microseconds
  std::vector<placement::GeneratorStats> generator;
  placement::CandidateCosts costs;
  bool weights_from_memory = false;         // the groups' weights were read from memory when timed (WeightsWhenTimed)
  MeasuredReorders reorders;                // the DP's conversion costs (empty when the runtime keeps every tensor plain)
  std::size_t candidates = 0;
  std::vector<placement::Candidate> candidate_groups;  // what the DP chose from (costs.us by index): the graph-level search's genes
  double generate_seconds = 0, dp_seconds = 0;  // search time, measuring excluded
};

namespace detail {

/// What the placed graph needs of each backend, type-erased.
struct CpuBackendOps {
  std::function<void(Graph<BuiltinOps> const&, Preparation&)> build;
  std::function<std::optional<AnyOp>(Graph<BuiltinOps> const&)> as_op;
  std::function<bool(Graph<BuiltinOps> const&)> any_layout;
};

template <CpuBackend B>
CpuBackendOps cpu_backend_ops() {
  CpuBackendOps ops;
  ops.build = [](Graph<BuiltinOps> const& group, Preparation& p) { B{}.build(group, p); };
  if constexpr (RewritingCpuBackend<B>)
    ops.as_op = [](Graph<BuiltinOps> const& group) { return B{}.as_op(group); };
  else
    ops.as_op = [](Graph<BuiltinOps> const&) { return std::optional<AnyOp>{}; };
  if constexpr (requires(B const& b, Graph<BuiltinOps> const& group) { { b.any_layout(group) } -> std::convertible_to<bool>; })
    ops.any_layout = [](Graph<BuiltinOps> const& group) { return B{}.any_layout(group); };
  else
    ops.any_layout = [](Graph<BuiltinOps> const&) { return false; };
  return ops;
}

/// Whether `gg` is one op: as_op() then gives that op itself, with all its outputs.
inline bool single_op(GroupGraph const& gg) { return group_ops(gg.graph).size() == 1; }

/// The node a group becomes: the built-in op, or a BackendGroup. A group of one op stays that
/// op whatever its outputs (a Split has several; the runtime lowers it to views of its input,
/// which no backend's build makes a kernel of), a fused group only with one output.
inline AnyOp group_op(CpuBackendOps const& backend, std::string const& name, std::string const& pattern, GroupGraph const& gg) {
  if (gg.outputs.size() == 1 || single_op(gg))
    if (auto op = backend.as_op(gg.graph)) return *op;
  auto body = std::make_shared<GroupBody>(GroupBody{gg.graph, name, pattern, backend.build, backend.any_layout(gg.graph)});
  return AnyOp{BackendGroup{std::move(body)}};
}

}  // namespace detail

/// The graph `g` run as `placement` says, each group one node (see the file comment). With
/// `node_backend`, receives the backend of each node of the result (empty for sources and
/// constants), by node id: what reports and DOT pictures show.
template <class... B>
Graph<PlacedOps> placed_graph(Backends<B...>, Graph<BuiltinOps> const& g, placement::Placement const& p,
                              std::vector<std::string>* node_backend = nullptr) {
  std::vector<detail::CpuBackendOps> ops{detail::cpu_backend_ops<B>()...};
  std::vector<std::string> names{std::string(B::name)...};
  return placement::placed_graph<PlacedOps>(
      g, p,
      [&](placement::PlacedGroup const& pg, GroupGraph const& gg) {
        auto const& backend = p.backends.at(pg.backend);
        auto it = std::ranges::find(names, backend);
        if (it == names.end()) throw Error("placed_graph(): the placement uses backend '" + backend + "', which is not in the list given");
        AnyOp op = detail::group_op(ops[static_cast<std::size_t>(it - names.begin())], backend, pg.pattern, gg);
        // One op kept as itself has its own outputs (the group's escaping values are some of them,
        // by port); a fused op or a BackendGroup has the group's escaping values, in order.
        bool itself = !op.is<BackendGroup>() && detail::single_op(gg);
        return placement::GroupNode{std::move(op), itself};
      },
      node_backend);
}

namespace detail {

/// A sampler of the microseconds one more kernel of `op` costs in a run, (T(copies) - T(1)) /
/// (copies - 1): each call times `runs` runs of the lone kernel and then `runs` of `copies`
/// copies, and gives the difference of their medians per copy. Both executables are prepared
/// and warmed up once. Each copy reads weights of its own (copies_graph's own_constants), as a
/// model's layers do; with `cold`, the caches are evicted before every run.
template <class Policy>
std::function<double()> marginal_sampler(AnyOp const& op, std::vector<TensorDesc> const& in, std::vector<char> const& constant,
                                         BasicCpuRuntime<Policy>& cpu, int copies, int runs, BoundaryChannelsLast boundary,
                                         std::shared_ptr<ColdCache> cold) {
  auto ready = [&](int k) {
    Graph<PlacedOps> h = copies_graph<PlacedOps>(op, in, k, constant, /*own_constants=*/true);
    return std::make_shared<CpuExecutable>(cpu.ready_to_time(h, schedule::sequential(KernelDag(h)), boundary));
  };
  std::shared_ptr<CpuExecutable> one = ready(1), many = ready(copies);
  auto ms = [cold, runs](CpuExecutable& e) {
    if (!cold) return median(e.time(0, runs));
    std::vector<double> s;
    for (int i = 0; i < runs; ++i) {
      (*cold)();
      s.push_back(e.time(0, 1).front());
    }
    return median(std::move(s));
  };
  return [one, many, copies, ms] {
    double a = ms(*one), b = ms(*many);
    return std::max(0.0, (b - a) / (copies - 1)) * 1000.0;
  };
}

/// Bytes of the weights (Weight nodes) of `g`.
template <class Set>
std::int64_t weight_bytes(Graph<Set> const& g) {
  std::int64_t b = 0;
  for (NodeId n : g.node_ids())
    if (g[n].template is<Weight>()) b += g[n].outputs[0].bytes();
  return b;
}

}  // namespace detail

/// Microseconds of one reorder of a 4-D `shape` from plain to channels-last in a run: a
/// one-input Concat, which the runtime lowers to one copy from its input's layout to its
/// output's (cpu/lower.hpp: src/cpu/layout.cpp), read plain and written channels-last. The
/// median of `samples` paired samples (marginal_sampler: 3 runs of the lone copy and then 3 of
/// the copies, back to back), so that drift between the two falls on both alike.
template <class Policy>
double measure_reorder_us(Shape const& shape, BasicCpuRuntime<Policy>& cpu, int copies, int samples = 5) {
  if (samples < 1) throw Error("measure_reorder_us(): samples must be at least 1 (got " + std::to_string(samples) + ")");
  auto sample = detail::marginal_sampler(AnyOp{Concat{.axis = 1}}, {TensorDesc{shape}}, {0}, cpu, copies, 3, {.inputs = false, .outputs = true}, nullptr);
  std::vector<double> us;
  for (int i = 0; i < samples; ++i) us.push_back(sample());
  return median(std::move(us));
}

/// The cost database's signature of a reorder of `shape` (backend "reorder").
inline std::string reorder_signature(Shape const& shape) { return "plain -> channels-last " + shape.to_string(); }

/// Which inputs of `op` (reading `in`) its CPU kernel takes channels-last, and whether it gives
/// its 4-D outputs channels-last: what lowering asks of it (cpu/lower.hpp; an op that runs no
/// kernel, a view, takes and gives nothing).
struct ChannelsLastIo {
  std::vector<char> takes;  // by input
  bool gives = false;
};

template <class Set>
ChannelsLastIo channels_last_io(AnyOp const& op, std::span<TensorDesc const> in) {
  ChannelsLastIo r;
  r.takes.assign(in.size(), 0);
  std::vector<TensorDesc> out = op.infer(in);
  if (!runs_kernel(op, in, out)) return r;
  visit_op<Set>(op, [&](auto const& o) {
    using Op = std::remove_cvref_t<decltype(o)>;
    if constexpr (ChannelsLastKernel<Op>) {
      for (std::size_t i = 0; i < in.size(); ++i) r.takes[i] = Kernel<Op>::takes_channels_last(o, in, i) ? 1 : 0;
      r.gives = Kernel<Op>::gives_channels_last(o, in);
    }
  });
  return r;
}

#if defined(AUTOGRAPH_CPU_PRECOMPILED)
extern template ChannelsLastIo channels_last_io<PlacedOps>(AnyOp const&, std::span<TensorDesc const>);  // src/cpu/placed_ops.cpp
#endif

/// The reorders a placement of `g` may run, one per 4-D activation shape (graph inputs and the
/// outputs of placed ops), in microseconds: from `db`, measuring (and saving) the shapes it
/// does not know, with progress.
template <class Policy>
MeasuredReorders measure_reorders(GraphFacts<BuiltinOps> const& facts, BasicCpuRuntime<Policy>& cpu, placement::CostDatabase& db, int copies,
                                  std::function<void(placement::CostProgress const&)> const& progress = {}) {
  auto const& g = facts.graph();
  std::map<std::string, Shape> shapes;
  auto note = [&](Value v) {
    Shape const& s = g.desc(v).shape;
    if (s.rank() == 4 && s.numel() > 0 && !facts.constant(v.node)) shapes.try_emplace(s.to_string(), s);
  };
  for (NodeId n : facts.placed_nodes()) {
    for (Value in : g[n].inputs) note(in);
    for (std::uint32_t port = 0; port < g[n].outputs.size(); ++port) note(Value{n, port});
  }
  MeasuredReorders r;
  std::vector<std::pair<std::string, Shape>> missing;
  for (auto const& [key, shape] : shapes) {
    if (auto known = db.find("reorder", reorder_signature(shape))) r.us[key] = *known;
    else missing.emplace_back(key, shape);
  }
  auto const start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < missing.size(); ++i) {
    std::string sig = reorder_signature(missing[i].second);
    if (progress) progress({i, missing.size(), "reorder", sig});
    double us = measure_reorder_us(missing[i].second, cpu, copies);
    db.insert("reorder", sig, us);
    r.us[missing[i].first] = us;
    ++r.measured;
  }
  if (!missing.empty()) {
    if (progress) progress({missing.size(), missing.size(), {}, {}});
    db.save();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

/// The CPU runtime's layouts for the op-level DP (placement/layout_model.hpp): each candidate
/// takes and gives channels-last what its kernel does (channels_last_io of the node it becomes),
/// and a conversion of a 4-D activation costs one reorder of its shape (`reorders_us`, by shape;
/// it must outlive the DP).
template <class... B>
placement::LayoutModel channels_last_model(Backends<B...>, GraphFacts<BuiltinOps> const& facts, std::map<std::string, double> const& reorders_us) {
  auto const& g = facts.graph();
  std::vector<std::string> names{std::string(B::name)...};
  placement::LayoutModel m;
  m.layout = [&g, names, ops = std::vector<detail::CpuBackendOps>{detail::cpu_backend_ops<B>()...}](placement::Candidate const& c) {
    GroupGraph gg = group_graph(g, c.group);
    AnyOp op = detail::group_op(ops[c.backend], names[c.backend], c.pattern, gg);
    std::vector<TensorDesc> in;
    for (Value v : gg.inputs) in.push_back(g.desc(v));
    ChannelsLastIo io = channels_last_io<PlacedOps>(op, in);
    placement::GroupLayout l;
    for (std::size_t i = 0; i < gg.inputs.size(); ++i)
      if (io.takes[i]) l.takes_fast.push_back(gg.inputs[i]);
    if (io.gives)
      for (Value v : gg.outputs)
        if (g.desc(v).shape.rank() == 4) l.gives_fast.push_back(v);
    return l;
  };
  m.conversion = [&facts, &reorders_us](Value v) {
    if (facts.constant(v.node)) return 0.0;
    Shape const& s = facts.graph().desc(v).shape;
    if (s.rank() != 4 || s.numel() == 0) return 0.0;
    auto it = reorders_us.find(s.to_string());
    if (it == reorders_us.end()) throw Error("channels_last_model(): no reorder measured for " + s.to_string() + " (measure_reorders() first)");
    return it->second;
  };
  return m;
}

/// The op-level placement of `g` on `cpu` (see the file comment).
/// @throws Error naming a node no allowed backend runs, or a backend that claims a group and
/// then cannot build it.
template <class... B, class Policy>
PlacedGraph place(Backends<B...> backends, Graph<BuiltinOps> const& g, BasicCpuRuntime<Policy>& cpu, placement::CostDatabase& db,
                  PlaceOptions const& o = {}) {
  static_assert((CpuBackend<B> && ...), "every backend placed on the CPU runtime must model cpu::CpuBackend (cpu/backends/cpu_backend.hpp)");
  if (o.copies < 2) throw Error("place(): copies must be at least 2, got " + std::to_string(o.copies));
  if (o.runs_per_sample < 1) throw Error("place(): runs_per_sample must be at least 1, got " + std::to_string(o.runs_per_sample));
  using Clock = std::chrono::steady_clock;
  PlacedGraph r;
  GraphFacts<BuiltinOps> facts(g);
  auto registry = Backends<B...>::template registry<BuiltinOps>();
  std::vector<std::string> names;
  for (auto const& e : registry) names.push_back(e.name);
  for (auto const& want : o.backends)
    if (std::ranges::find(names, want) == names.end()) throw Error("place(): no backend called '" + want + "'");
  auto t0 = Clock::now();
  auto generated = placement::generate_candidates(facts, registry);
  std::vector<placement::Candidate> candidates;
  for (auto& c : generated.candidates)
    if (o.backends.empty() || std::ranges::find(o.backends, names[c.backend]) != o.backends.end()) candidates.push_back(std::move(c));
  r.generate_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.generator = std::move(generated.stats);
  r.candidates = candidates.size();

  std::vector<detail::CpuBackendOps> ops{detail::cpu_backend_ops<B>()...};
  placement::InterleavedSampling sampling;
  sampling.rounds = o.rounds;
  sampling.min_rounds = o.min_rounds;
  r.weights_from_memory = o.weights == WeightsWhenTimed::from_memory ||
                          (o.weights == WeightsWhenTimed::as_in_the_model &&
                           static_cast<std::size_t>(detail::weight_bytes(g)) > last_level_cache_bytes());
  std::shared_ptr<ColdCache> cold = r.weights_from_memory ? std::make_shared<ColdCache>() : nullptr;
  if (r.weights_from_memory) sampling.condition += " | weights from memory";
  if (cpu.options().budget_ms > 0) sampling.budget_seconds = std::min(sampling.budget_seconds, 2 * cpu.options().budget_ms / 1000.0);
  sampling.prepare = [&](placement::Candidate const& c) {
    GroupGraph gg = group_graph(g, c.group);
    AnyOp op = detail::group_op(ops[c.backend], names[c.backend], c.pattern, gg);
    std::vector<TensorDesc> in;
    std::vector<char> constant;
    for (Value v : gg.inputs) {
      in.push_back(g.desc(v));
      constant.push_back(facts.constant(v.node) ? 1 : 0);
    }
    // Channels-last inputs and outputs where the kernel takes and gives them, as in a model
    // that keeps that layout; the conversions where it meets a plain neighbour are the DP's to
    // charge, on the edge (placement/layout_model.hpp).
    return detail::marginal_sampler(op, in, constant, cpu, o.copies, o.runs_per_sample, {.inputs = true, .outputs = true}, cold);
  };
  r.costs = placement::candidate_costs(facts, std::span<placement::Candidate const>(candidates), std::span<std::string const>(names), db, sampling,
                                       o.progress);
  auto by_index = [&](placement::Candidate const& c) { return r.costs.us[static_cast<std::size_t>(&c - candidates.data())]; };
  placement::DpOptions dp = o.dp;
  if (cpu.options().channels_last) {
    r.reorders = measure_reorders(facts, cpu, db, o.copies, o.progress);
    dp.layout = channels_last_model(backends, facts, r.reorders.us);
  }
  r.placement = placement::op_level_dp(facts, std::span<placement::Candidate const>(candidates), names, by_index, dp);
  r.dp_seconds = r.placement.seconds;
  r.graph = placed_graph(backends, g, r.placement, &r.node_backend);
  r.candidate_groups = std::move(candidates);
  return r;
}

/// A single-backend placement: one backend, with the others listed for the ops it cannot run.
struct SingleBackend {
  std::string label;                  // "own (+ onednn for the rest)"
  std::vector<std::string> backends;  // {"own", "onednn"}
};

/// Every backend of the list as a single-backend placement, in the list's order: `fallback`
/// alone ("onednn alone"), each other one with `fallback` for the ops it does not run (no
/// backend but oneDNN runs every op of the zoo). @throws Error when `fallback` is not one of them.
template <class... B>
std::vector<SingleBackend> single_backends(Backends<B...>, std::string const& fallback = "onednn") {
  std::vector<std::string> names{std::string(B::name)...};
  if (std::ranges::find(names, fallback) == names.end()) throw Error("single_backends(): no backend called '" + fallback + "'");
  std::vector<SingleBackend> r;
  for (auto const& n : names)
    r.push_back(n == fallback ? SingleBackend{n + " alone", {n}} : SingleBackend{n + " (+ " + fallback + " for the rest)", {n, fallback}});
  return r;
}

/// Which of the labelled placements of one graph to run, by measurement on `judge`
/// (placement/measured_choice.hpp): the first holds the place, and each later one takes it only
/// when CpuRuntime::compare calls it faster beyond noise; one that places every group as the
/// holder does is not measured.
template <class JudgePolicy>
placement::MeasuredChoice choose_placement(BasicCpuRuntime<JudgePolicy>& judge, std::vector<std::pair<std::string, PlacedGraph const*>> const& contenders,
                                           std::size_t decided = 1) {
  return placement::choose_measured<PlacedGraph>(
      contenders, [&](PlacedGraph const& a, PlacedGraph const& b) { return judge.compare(a.graph, b.graph); },
      [](PlacedGraph const& a, PlacedGraph const& b) { return placement::same_placement(a.placement, b.placement); }, decided);
}

/// place(), guarded by measurement (issue 17: never slower than the best single backend): `g`
/// is placed on each of `singles` and by the DP over every allowed backend, and choose_placement
/// keeps the best single backend unless the DP's placement measures faster than it beyond
/// noise on `judge`. The result's `kept` names the placement kept, `guard` says why (the
/// medians), `decisions` has each comparison; its costs.measured counts the groups measured for
/// every placement compared. Op-level costs are measured with each group alone
/// (Collage Eq. 2), so a placement can lose in the model what its groups win alone: a
/// plain-layout kernel between channels-last ones adds reorders, concurrent streams share the
/// cores. Collage's graph-level stage (§4.3) measures whole placements for the same reason.
template <class... B, class Policy, class JudgePolicy>
PlacedGraph place_guarded(Backends<B...> backends, Graph<BuiltinOps> const& g, BasicCpuRuntime<Policy>& profiler,
                          BasicCpuRuntime<JudgePolicy>& judge, placement::CostDatabase& db, std::vector<SingleBackend> const& singles,
                          PlaceOptions const& o = {}) {
  std::vector<PlacedGraph> placed;
  for (auto const& single : singles) {
    PlaceOptions alone = o;
    alone.backends = single.backends;
    placed.push_back(place(backends, g, profiler, db, alone));
  }
  placed.push_back(place(backends, g, profiler, db, o));
  std::vector<std::pair<std::string, PlacedGraph const*>> contenders;
  for (std::size_t i = 0; i < singles.size(); ++i) contenders.emplace_back(singles[i].label, &placed[i]);
  contenders.emplace_back("op-level placement", &placed.back());
  auto choice = choose_placement(judge, contenders);
  PlacedGraph r = std::move(placed[choice.kept]);
  for (std::size_t i = 0; i < placed.size(); ++i)  // the groups measured to place all of them
    if (i != choice.kept) {
      r.costs.measured += placed[i].costs.measured, r.costs.measuring_seconds += placed[i].costs.measuring_seconds;
      r.reorders.measured += placed[i].reorders.measured, r.reorders.seconds += placed[i].reorders.seconds;
    }
  r.kept = contenders[choice.kept].first;
  r.guard = "kept " + r.kept;
  for (auto const& d : choice.decisions) r.guard += "; " + d.describe();
  r.decisions = std::move(choice.decisions);
  return r;
}

}  // namespace autograph::cpu
