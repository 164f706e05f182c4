#pragma once
// SimulatedRuntime<Device, Policy, Model, LaunchModel>: an estimate of how long a graph takes on a GPU, by simulating its
// multi-stream schedule with per-kernel costs from a cost model. Every number it gives is an
// estimate and its kind() says so: "simulated (roofline, H100 SXM)".
//
// The simulation (cost/launch.hpp says how kernels reach the GPU):
// - launch::CudaGraph (the default): the run starts after the graph-launch overhead;
// - launch::HostLaunched: the host issues kernel i of its program order at (i + 1) ·
//   host_launch_us, and a kernel is ready no earlier than it was issued; a run on several
//   streams ends with the host synchronizing the device (host_sync_us);
// - launch::MetaFlowEngine: host-launched, and an operator the engine runs as several kernels
//   (LaunchModel::kernels()) takes one host call per kernel and their times one after another;
// - launch::IosEngine: as MetaFlowEngine, and a tree of Adds the engine sums as one term
//   (LaunchModel::term_sum_inputs, cost/summed_terms.hpp) launches its kernels from its last
//   Add; its inner Adds stay in the schedule but take no host call, no turn at the front end
//   and no time: they finish as soon as what they read has;
// - a kernel is ready when its stream predecessor has finished and every kernel it waits
//   for has finished plus the event cost; it then spends its fixed latency (launch, ramp-up)
//   holding no SMs, and then its work;
// - the device's front end dispatches one kernel at a time (DeviceSpec::dispatch_us, the
//   first part of that latency): kernels ready together on several streams start their
//   latencies dispatch_us apart, in the order they became ready (then the order of the
//   launches); only their ramp-up and drain overlap;
// - kernels doing work at the same time share the SMs by the fraction of the device each one
//   fills: while their fills add up to at most 1 each runs at its standalone speed; beyond
//   that all of them slow down by the oversubscription (a 30% and a 50% kernel run side by
//   side at full speed; two 80% kernels each run at 1/1.6 of their speed). The DRAM
//   bandwidth is shared the same way, by the fraction each kernel draws alone
//   (KernelCost::bandwidth): two memory-bound kernels that each saturate it take as long
//   side by side as one after the other.
//
// Streams come from a schedule policy (Nimble by default) when measure() is given a graph
// alone, or from the caller's schedule.
//
// A graph whose tensors the device cannot hold (cost/memory.hpp: run one node at a time, more
// bytes live at once than the device has) has no latency: measuring it throws an Error that
// names its largest tensor and the device's memory. Kernels with empty outputs (a batch of 0)
// run nothing and cost nothing (runs_kernel()).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <limits>
#include <queue>
#include <span>
#include <string>
#include <vector>

#include "autograph/core/precompiled.hpp"
#include "autograph/cost/device.hpp"
#include "autograph/cost/launch.hpp"
#include "autograph/cost/memory.hpp"
#include "autograph/cost/roofline.hpp"
#include "autograph/cost/summed_terms.hpp"
#include "autograph/graph/stats.hpp"
#include "autograph/runtime/runtime.hpp"
#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/policy.hpp"
#include "autograph/schedule/schedule.hpp"

namespace autograph {

namespace detail {

/// The simulation itself, independent of the device type, policy, cost model and operator set
/// (so every runtime configuration shares one copy of it).
class Simulator {
 public:
  /// `cost[id]`: the cost of kernel node id (indexed by NodeId); `label` names nodes in errors.
  /// `host_issued`: kernels are issued one by one by a host thread (launch::HostLaunched).
  /// `calls[id]`: the host calls that issue node id's kernels (empty: one each; 0: the node
  /// launches nothing, its work done by another node's kernel).
  Simulator(DeviceSpec const& device, KernelDag const& dag, std::vector<KernelCost> cost, std::function<std::string(NodeId)> label,
            bool host_issued = false, std::vector<std::uint32_t> calls = {})
      : d_(device), dag_(&dag), hb_(cost.size()), cost_(std::move(cost)), label_(std::move(label)), host_issued_(host_issued),
        calls_(std::move(calls)) {}

  /// The end of running `s`, in microseconds from the start; fills `spans` when given.
  /// @throws ScheduleError when `s` launches a node that runs no kernel, leaves a dependency
  /// between launched kernels unenforced, or deadlocks.
  double run(Schedule const& s, std::vector<KernelSpan>* spans = nullptr);

  /// The time per run of `s` run over and over, as a profiler times it (IOS's
  /// measure_stage_latency: `number` runs between two events). Host-issued on one stream, the
  /// runs are not synchronized: the host issues the next run's kernels while the device runs
  /// this one's, so a run costs the slower of the two, the host's calls or the kernels one after
  /// another (a two-stage pipeline runs at its slower stage's pace). Several streams are
  /// synchronized after every run, and a CUDA graph's replays are timed one by one here: run().
  /// @throws ScheduleError as run().
  double run_repeated(Schedule const& s);

  /// Whether node `id` launches a kernel (false for the inner Adds of a term an engine sums).
  bool launches(NodeId id) const { return calls(id) > 0; }

 private:
  /// Host calls that issue node `id`'s kernels.
  double calls(NodeId id) const { return id < calls_.size() ? static_cast<double>(calls_[id]) : 1.0; }
  /// ready_at_[f] := the time the host issues launch f's first kernel. The host's program order: every launch
  /// after those it follows on its stream and those it waits for (cudaStreamWaitEvent needs the
  /// event recorded first), and among the launches whose turn is open, the graph's order.
  void issue_from_host(std::span<Launch const* const> launches);

  DeviceSpec d_;
  KernelDag const* dag_;
  HappensBefore hb_;
  std::vector<KernelCost> cost_;  // by NodeId
  std::function<std::string(NodeId)> label_;
  bool host_issued_ = false;
  std::vector<std::uint32_t> calls_;  // by NodeId
  // scratch, reused between runs
  std::vector<std::uint32_t> missing_, active_, pending_, undispatched_;
  std::vector<double> ready_at_, enter_at_, end_, rem_;
};

// Compiled once in src/defaults/schedule.cpp for the programs that link autograph::defaults
// (core/precompiled.hpp): every configuration of the runtime runs this one simulation.
#if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_RUNTIME)
AUTOGRAPH_DEFAULTS_INLINE double Simulator::run(Schedule const& s, std::vector<KernelSpan>* spans) {
  hb_.build(s, label_);
  auto launches = hb_.launches();
  std::size_t n = launches.size();
  for (Launch const* l : launches) {
    std::uint32_t k = dag_->index(l->node);
    if (k == KernelDag::npos) throw ScheduleError("the schedule launches " + label_(l->node) + ", which runs no kernel in this graph");
    for (std::uint32_t p : dag_->preds(k)) {
      NodeId u = dag_->node(p);
      if (hb_.scheduled(u) && !hb_.before(u, l->node))
        throw ScheduleError(label_(l->node) + " may start before " + label_(u) + ", which it reads: add a wait or reorder the streams");
    }
  }
  double const start = host_issued_ ? 0.0 : d_.graph_launch_us;
  if (n == 0) return start;

  constexpr double inf = std::numeric_limits<double>::infinity();
  missing_.resize(n);
  ready_at_.assign(n, start);
  if (host_issued_) issue_from_host(launches);
  enter_at_.assign(n, inf);
  end_.assign(n, inf);
  rem_.resize(n);
  for (std::size_t f = 0; f < n; ++f) {
    missing_[f] = hb_.in_degree(f);
    KernelCost const& c = cost_[launches[f]->node];
    rem_[f] = std::max(0.0, c.us - c.latency_us);
  }
  active_.clear();
  pending_.clear();
  undispatched_.clear();
  // Ready kernels wait for the front end; dispatched ones spend their latency (pending_).
  auto release = [&](std::size_t f) { undispatched_.push_back(static_cast<std::uint32_t>(f)); };
  double front_free = start;  // when the front end can dispatch the next kernel
  // The undispatched kernel the front end takes next: the first ready (then the first launched).
  auto next_to_dispatch = [&]() -> std::size_t {
    std::size_t best = 0;
    for (std::size_t i = 1; i < undispatched_.size(); ++i) {
      std::uint32_t f = undispatched_[i], b = undispatched_[best];
      if (ready_at_[f] < ready_at_[b] || (ready_at_[f] == ready_at_[b] && f < b)) best = i;
    }
    return best;
  };
  // Dispatch every kernel whose turn at the front end has come by `now`. Every kernel ready by
  // `now` has been released by then (a kernel is released no later than it is ready), so none
  // released later can have been ready before the ones taken here.
  auto dispatch = [&](double now) {
    while (!undispatched_.empty()) {
      std::size_t i = next_to_dispatch();
      std::uint32_t f = undispatched_[i];
      bool launches_nothing = calls(launches[f]->node) == 0;  // takes no turn at the front end
      double at = launches_nothing ? ready_at_[f] : std::max(ready_at_[f], front_free);
      if (at > now) break;
      if (!launches_nothing) front_free = at + d_.dispatch_us;
      enter_at_[f] = at + cost_[launches[f]->node].latency_us;
      undispatched_[i] = undispatched_.back();
      undispatched_.pop_back();
      pending_.push_back(f);
    }
  };
  for (std::size_t f = 0; f < n; ++f)
    if (missing_[f] == 0) release(f);
  auto finish = [&](std::uint32_t f, double t) {
    end_[f] = t;
    std::uint32_t stream = hb_.stream(launches[f]->node);
    for (std::uint32_t g : hb_.successors(f)) {
      // The next kernel of the same stream follows at once; a waiter pays for the event.
      double ready = hb_.stream(launches[g]->node) == stream ? t : t + d_.event_us;
      ready_at_[g] = std::max(ready_at_[g], ready);
      if (--missing_[g] == 0) release(g);
    }
  };

  double t = start;
  std::size_t finished = 0;
  // Every step below ends with at least one kernel whose work is done (it finishes at the
  // next step), one whose latency is over (it starts its work at the next step) or one whose
  // turn at the front end has come (it is dispatched at the next step): 3n steps run any
  // schedule. More would be a bug; it is reported rather than looping forever.
  std::size_t const max_steps = 3 * n + 2;
  for (std::size_t step = 0; finished < n; ++step) {
    if (step == max_steps)
      throw Error("the simulation made no progress at " + std::to_string(t) + " us with " + std::to_string(n - finished) +
                  " of " + std::to_string(n) + " kernels unfinished (a simulator bug: please report it)");
    // Kernels whose turn at the front end has come are dispatched, kernels whose latency is
    // over start their work, kernels with no work left finish.
    for (bool changed = true; changed;) {
      changed = false;
      dispatch(t);
      for (std::size_t i = 0; i < pending_.size();) {
        std::uint32_t f = pending_[i];
        if (enter_at_[f] <= t) {
          pending_[i] = pending_.back();
          pending_.pop_back();
          active_.push_back(f);
        } else {
          ++i;
        }
      }
      for (std::size_t i = 0; i < active_.size();) {
        std::uint32_t f = active_[i];
        if (rem_[f] <= 0) {
          active_[i] = active_.back();
          active_.pop_back();
          finish(f, t);
          ++finished;
          changed = true;
        } else {
          ++i;
        }
      }
    }
    if (finished == n) break;
    // Kernels doing work share the SMs and the DRAM bandwidth: beyond a full device or a
    // saturated memory, all slow down alike.
    double demand = 0, drawn = 0;
    for (std::uint32_t f : active_) {
      demand += cost_[launches[f]->node].fill;
      drawn += cost_[launches[f]->node].bandwidth;
    }
    double slowdown = std::max({1.0, demand, drawn});
    double next = inf;
    for (std::uint32_t f : active_) next = std::min(next, t + rem_[f] * slowdown);
    for (std::uint32_t f : pending_) next = std::min(next, enter_at_[f]);
    if (!undispatched_.empty()) next = std::min(next, std::max(ready_at_[undispatched_[next_to_dispatch()]], front_free));
    if (next == inf) throw ScheduleError("the simulation stalled: a launch waits for a kernel that never runs");
    double dt = next - t;
    for (std::uint32_t f : active_) {
      // A kernel whose end is `next` is done, even when t + its work rounds to t (late in a
      // long run, a short kernel's work can be below the spacing of doubles near t).
      if (t + rem_[f] * slowdown <= next) {
        rem_[f] = 0;
        continue;
      }
      rem_[f] -= dt / slowdown;
      if (rem_[f] < 1e-9 * std::max(1.0, cost_[launches[f]->node].us)) rem_[f] = 0;  // finished up to rounding
    }
    t = next;
  }
  double total = start;
  for (std::size_t f = 0; f < n; ++f) total = std::max(total, end_[f]);
  // The host's last launch call returns after the GPU is done only when the GPU is faster.
  if (host_issued_) {
    double issued = 0;
    for (Launch const* l : launches) issued += calls(l->node);
    total = std::max(total, issued * d_.host_launch_us);
  }
  // Several streams are joined by the host synchronizing the device (cost/launch.hpp).
  if (host_issued_ && s.num_streams() > 1) total += d_.host_sync_us;
  if (spans) {
    spans->clear();
    for (std::size_t f = 0; f < n; ++f) {
      NodeId id = launches[f]->node;
      spans->push_back({id, hb_.stream(id), ready_at_[f], end_[f], cost_[id].fill});
    }
  }
  return total;
}

AUTOGRAPH_DEFAULTS_INLINE double Simulator::run_repeated(Schedule const& s) {
  double once = run(s);  // checks the schedule too
  if (!host_issued_ || s.num_streams() > 1) return once;
  double kernels = 0, issued = 0;
  for (auto const& stream : s.streams)
    for (Launch const& l : stream) {
      kernels += cost_[l.node].us;
      issued += calls(l.node);
    }
  return std::max(kernels, issued * d_.host_launch_us);
}

AUTOGRAPH_DEFAULTS_INLINE void Simulator::issue_from_host(std::span<Launch const* const> launches) {
  std::size_t n = launches.size();
  missing_.resize(n);
  for (std::size_t f = 0; f < n; ++f) missing_[f] = hb_.in_degree(f);
  auto later = [&](std::uint32_t a, std::uint32_t b) { return dag_->index(launches[a]->node) > dag_->index(launches[b]->node); };
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, decltype(later)> open(later);
  for (std::uint32_t f = 0; f < n; ++f)
    if (missing_[f] == 0) open.push(f);
  double issued = 0;  // host calls made so far
  while (!open.empty()) {
    std::uint32_t f = open.top();
    open.pop();
    double c = calls(launches[f]->node);
    // A node that launches nothing is passed when the host gets to it, after its last call.
    ready_at_[f] = (issued + (c > 0 ? 1 : 0)) * d_.host_launch_us;
    issued += c;
    for (std::uint32_t g : hb_.successors(f))
      if (--missing_[g] == 0) open.push(g);
  }
}
#endif

/// LaunchModel::kernels as a value: one instantiation of SimulatedGraph serves every launch model.
using EngineKernelsFn = std::vector<launch::EngineKernel> (*)(AnyOp const&, std::span<TensorDesc const>, std::span<TensorDesc const>);

/// What a launch model says about the kernels it launches, as values.
struct EngineLaunch {
  bool host_issued = false;
  EngineKernelsFn kernels = nullptr;
  std::size_t term_sum_inputs = 0;  // LaunchModel::term_sum_inputs
};

/// One graph ready for many simulated runs: its kernel DAG and per-kernel costs, computed once.
/// Everything of SimulatedRuntime::Prepared that depends on neither the device type, the
/// policy nor the launch model (those come in as values), so that one instantiation per
/// operator set and cost model serves every runtime configuration.
/// @pre `g` outlives the object.
template <class Set, class Model>
class SimulatedGraph {
 public:
  /// @throws Error when the device cannot hold `g` or the model gives a kernel a time that is
  /// not finite.
  SimulatedGraph(DeviceSpec const& device, Model const& model, std::string kind, Graph<Set> const& g, EngineLaunch launch = {});
  KernelDag const& dag() const { return *dag_; }
  /// Latency of running `s`, in milliseconds.
  double measure(Schedule const& s) { return sim_.run(s) / 1000.0; }
  /// Milliseconds per run of `s` run over and over, as a profiler times it (Simulator::run_repeated).
  double measure_repeated(Schedule const& s) { return sim_.run_repeated(s) / 1000.0; }
  /// Whether node `id` launches a kernel under the launch model (an inner Add of a term the
  /// engine sums launches none: cost/summed_terms.hpp).
  bool launches(NodeId id) const { return sim_.launches(id); }
  Timeline timeline(Schedule const& s);

 private:
  /// Each kernel node's cost, and into `calls` the host calls that issue it (kernels() and
  /// term_sum_inputs of the launch model).
  static std::vector<KernelCost> costs(Model const& model, Graph<Set> const& g, KernelDag const& dag, EngineLaunch const& launch,
                                       std::vector<std::uint32_t>& calls);
  static Simulator simulator(DeviceSpec const& device, Model const& model, Graph<Set> const& g, KernelDag const& dag,
                             EngineLaunch const& launch) {
    std::vector<std::uint32_t> calls;
    auto cost = costs(model, g, dag, launch, calls);
    return Simulator(device, dag, std::move(cost), [&g](NodeId id) { return g.contains(id) ? g.label(id) : "node " + std::to_string(id); },
                     launch.host_issued, std::move(calls));
  }
  std::string kind_;
  std::unique_ptr<KernelDag> dag_;  // the simulator points at it: stable across moves
  Simulator sim_;
};

// Defined out of the class so that the `extern template` below keeps programs that link
// autograph::defaults from compiling them again (an inline member would be).
template <class Set, class Model>
SimulatedGraph<Set, Model>::SimulatedGraph(DeviceSpec const& device, Model const& model, std::string kind, Graph<Set> const& g,
                                           EngineLaunch launch)
    : kind_(std::move(kind)), dag_(std::make_unique<KernelDag>(g)), sim_(simulator(device, model, g, *dag_, launch)) {
  // Here, once per graph, rather than per schedule: a graph the device cannot hold has no latency.
  if (device.memory_bytes() > 0) {
    std::vector<char> launches(g.id_bound(), 0);
    for (NodeId id : dag_->nodes()) launches[id] = 1;
    check_fits(g, device_footprint(g, [&launches](NodeId id) { return launches[id] != 0; }), device);
  }
}

template <class Set, class Model>
Timeline SimulatedGraph<Set, Model>::timeline(Schedule const& s) {
  Timeline t;
  t.total_us = sim_.run(s, &t.kernels);
  t.streams = s.num_streams();
  t.waits = s.num_waits();
  t.kind = kind_;
  return t;
}

template <class Set, class Model>
std::vector<KernelCost> SimulatedGraph<Set, Model>::costs(Model const& model, Graph<Set> const& g, KernelDag const& dag,
                                                          EngineLaunch const& launch, std::vector<std::uint32_t>& calls) {
  std::vector<KernelCost> c(g.id_bound());
  calls.assign(g.id_bound(), 1);
  SummedTerms const terms = launch.term_sum_inputs > 0 ? summed_terms(g) : SummedTerms{};
  for (NodeId id : dag.nodes()) {
    auto const& n = g[id];
    if (terms.is_inner(id)) {
      // Its sum is part of a later Add's term: no kernel, no call (c[id] stays zero).
      calls[id] = 0;
      continue;
    }
    auto in = input_descs(g, id);
    std::vector<launch::EngineKernel> several;
    if (auto const* values = terms.term(id)) {
      std::vector<TensorDesc> descs;
      for (Value v : *values) descs.push_back(g.desc(v));
      several = launch::term_kernels(descs, n.outputs[0], launch.term_sum_inputs);
    } else if (launch.kernels) {
      several = launch.kernels(n.op, in, n.outputs);
    }
    if (several.empty()) {
      c[id] = model.estimate(n.op, in, n.outputs);
    } else {
      // The runtime launches several kernels for this op, one call each, one after another on
      // its stream: their times add up. The largest share of the device any of them takes stands
      // for all of them (the runtimes that do this run one stream, where no kernel shares it).
      KernelCost sum;
      for (launch::EngineKernel const& k : several) {
        KernelCost kc = model.estimate(k.op, k.in, k.out);
        sum.us += kc.us;
        sum.latency_us += kc.latency_us;
        sum.fill = std::max(sum.fill, kc.fill);
        sum.bandwidth = std::max(sum.bandwidth, kc.bandwidth);
      }
      c[id] = sum;
      calls[id] = static_cast<std::uint32_t>(several.size());
    }
    // The simulation adds and compares these: a NaN or an infinity would never finish.
    if (!(std::isfinite(c[id].us) && c[id].us >= 0 && std::isfinite(c[id].fill) && c[id].fill >= 0 && std::isfinite(c[id].latency_us) &&
          c[id].latency_us >= 0 && std::isfinite(c[id].bandwidth) && c[id].bandwidth >= 0))
      throw Error(model.describe() + " gives " + g.label(id) + " a cost of " + std::to_string(c[id].us) + " us (fill " +
                  std::to_string(c[id].fill) + ", latency " + std::to_string(c[id].latency_us) + " us): not a finite time");
  }
  return c;
}

#if defined(AUTOGRAPH_PRECOMPILED)
extern template class SimulatedGraph<BuiltinOps, RooflineCost>;  // src/defaults/schedule.cpp
#endif

}  // namespace detail

template <SimulatedDevice D = devices::H100, class Policy = schedule::Nimble, OpCostModel Model = RooflineCost, LaunchModel Launch = launch::CudaGraph>
class SimulatedRuntime {
 public:
  using device_type = D;
  using policy_type = Policy;
  using launch_model = Launch;

  SimulatedRuntime()
    requires Device<D> && std::constructible_from<Model, DeviceSpec const&>
      : SimulatedRuntime(Model(D::spec)) {}
  SimulatedRuntime()
    requires Device<D> && (!std::constructible_from<Model, DeviceSpec const&>) && std::default_initializable<Model>
      : SimulatedRuntime(Model{}) {}
  explicit SimulatedRuntime(Model model, Policy policy = {})
    requires Device<D>
      : device_(D::spec), model_(std::move(model)), policy_(std::move(policy)) {}
  /// The device named at run time (devices::AtRunTime): one instantiation for every device.
  explicit SimulatedRuntime(DeviceSpec const& device, Policy policy = {})
    requires std::same_as<D, devices::AtRunTime> && std::constructible_from<Model, DeviceSpec const&>
      : device_(device), model_(device), policy_(std::move(policy)) {}

  DeviceSpec const& device() const { return device_; }
  Model const& cost_model() const { return model_; }
  Policy const& policy() const { return policy_; }
  std::string kind() const {
    return "simulated (" + model_.describe() + (Launch::host_issued ? ", " + std::string(Launch::name) : "") + ")";
  }

  /// Many schedules of one graph, measured without indexing the graph again.
  /// @pre `g` outlives the result.
  template <class Set>
  using Prepared = detail::SimulatedGraph<Set, Model>;

  template <class Set>
  Prepared<Set> prepare(Graph<Set> const& g) const {
    return Prepared<Set>(device_, model_, kind(), g, detail::EngineLaunch{Launch::host_issued, &Launch::kernels, Launch::term_sum_inputs});
  }

  /// Latency in ms of `g` scheduled by the policy.
  template <class Set>
  double measure(Graph<Set> const& g) {
    auto sg = schedule(g);
    return measure(sg.graph, sg.schedule);
  }
  /// Latency in ms of running `s`.
  template <class Set>
  double measure(Graph<Set> const& g, Schedule const& s) const {
    return prepare(g).measure(s);
  }
  /// The policy's schedule of `g` (and the graph it schedules: IOS may rewrite it).
  template <class Set>
  ScheduledGraph<Set> schedule(Graph<Set> const& g) {
    return policy_(g, *this);
  }
  /// Latency in ms of `stages` run as IOS's engine runs them (its `Graph::forward`): stage
  /// after stage, each group of a stage on its own stream (group j on stream j), every kernel
  /// issued from the host; the host synchronizes the device after a stage unless that stage and
  /// the next both have one group (a chain of one-group stages is one stream). Nodes that
  /// launch nothing under the launch model (the inner Adds of a term IOS's engine sums, which
  /// IOS's graphs do not have) leave their groups, and a stage of nothing else is no stage:
  /// the host neither issues nor synchronizes anything for it.
  /// @pre every kernel of `g` is in exactly one group; a stage's groups are independent.
  /// @throws ScheduleError when a kernel runs before one it reads.
  template <class Set>
  double measure_stages(Graph<Set> const& g, std::span<std::vector<std::vector<NodeId>> const> stages) const
    requires(Launch::host_issued)
  {
    auto prepared = prepare(g);
    std::vector<std::vector<std::vector<NodeId>>> issued;
    for (auto const& groups : stages) {
      std::vector<std::vector<NodeId>> kept;
      for (auto const& group : groups) {
        std::vector<NodeId> launched;
        for (NodeId id : group)
          if (prepared.launches(id)) launched.push_back(id);
        if (!launched.empty()) kept.push_back(std::move(launched));
      }
      if (!kept.empty()) issued.push_back(std::move(kept));
    }
    double ms = 0;
    Schedule segment;
    for (std::size_t i = 0; i < issued.size(); ++i) {
      auto const& groups = issued[i];
      if (segment.streams.size() < groups.size()) segment.streams.resize(groups.size());
      for (std::size_t j = 0; j < groups.size(); ++j)
        for (NodeId id : groups[j]) segment.streams[j].push_back(autograph::Launch{id, {}});
      bool last = i + 1 == issued.size();
      if (!last && groups.size() == 1 && issued[i + 1].size() == 1) continue;
      // measure() adds the synchronization after several streams; one stream followed by
      // more stages is synchronized too.
      ms += prepared.measure(segment);
      if (!last && segment.num_streams() <= 1) ms += device_.host_sync_us / 1000.0;
      segment = {};
    }
    return ms;
  }

  /// Every kernel's start and end in the simulated run of `s`.
  template <class Set>
  Timeline simulate(Graph<Set> const& g, Schedule const& s) const {
    return prepare(g).timeline(s);
  }

 private:
  DeviceSpec device_;
  Model model_;
  Policy policy_;
};

}  // namespace autograph
