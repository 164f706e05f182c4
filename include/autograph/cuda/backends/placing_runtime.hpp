#pragma once
// PlacingCudaRuntime<Backends<...>>: the backend placement as a policy of the CUDA runtime, as
// cpu::PlacingCpuRuntime is the CPU's (issue 17: "the placement is a policy of the runtime").
// measure(g) places `g` by Collage's op-level DP, every group priced by measurement on the GPU
// through the persistent cost database (measure.hpp: a group measured once on this GPU is never
// measured again), and measures the placed graph under Nimble's streams. It models what the
// Optimizer asks of a runtime (measure, kind, cost model, compare), so AutoGraph's substitution
// search, the stream schedule and the placement run together:
//
//   cuda::CudaGraphRuntime gpu;
//   cuda::PlacingCudaRuntime<cuda::AllBackends> rt(gpu, {.database = "costs.json"});
//   Optimizer<Graph<>, rules::Default, MixedCriticalPath<0.25>, cuda::PlacingCudaRuntime<cuda::AllBackends>> opt(rt);
//   auto best = opt.optimize(g);
//   auto const& placed = opt.runtime().placed(best.graph);   // which backend runs each node
//
// Every graph a search measures is placed once (kept by its structural hash).
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "autograph/cuda/backends/measure.hpp"
#include "autograph/graph/structural_hash.hpp"

namespace autograph::cuda {

struct PlacingOptions {
  std::filesystem::path database = "autograph-gpu-placement-costs.json";
  int copies = 5;  // kernels in the "many" graph of a group's marginal-launch measurement
  int rounds = 7;  // interleaved timings per side in compare()
  std::function<void(placement::CostProgress const&)> progress = {};
};

template <class BackendList>
class PlacingCudaRuntime;

template <class... B>
class PlacingCudaRuntime<Backends<B...>> {
 public:
  /// Places on `gpu` (kept by reference: it must outlive this runtime and its copies).
  /// @throws Error for a database file that is not one.
  PlacingCudaRuntime(CudaGraphRuntime& gpu, PlacingOptions options = {})
      : gpu_(&gpu), state_(std::make_shared<State>(options, cuda_device_name(gpu))) {}

  std::string kind() const {
    std::string names;
    for (std::string n : {std::string(B::name)...}) names += (names.empty() ? "" : ", ") + n;
    return gpu_->kind() + ", placed on " + names + " by Collage's op-level DP over groups measured on the GPU";
  }
  /// The per-kernel model a search ranks unplaced candidates with (the GPU runtime's).
  MeasuredCost const& cost_model() const { return gpu_->cost_model(); }
  placement::CostDatabase const& database() const { return state_->db; }
  std::size_t graphs_placed() const { return state_->placed.size(); }
  std::size_t groups_measured() const { return state_->groups_measured; }

  /// The op-level placement of `g` (placed once per graph).
  PlacedGraph const& placed(Graph<BuiltinOps> const& g) {
    std::uint64_t key = structural_hash(g);
    if (auto found = state_->placed.find(key); found != state_->placed.end()) return *found->second;
    auto p = std::make_shared<PlacedGraph>(place(Backends<B...>{}, g, measured_pricing(*gpu_, state_->db, state_->options.copies, state_->options.progress)));
    state_->groups_measured += p->costs.measured;
    return *state_->placed.emplace(key, std::move(p)).first->second;
  }
  /// Latency in ms of `g` placed, under Nimble's streams.
  double measure(Graph<BuiltinOps> const& g) { return measure_placed(*gpu_, placed(g).graph); }
  /// Whether `challenger` placed runs faster than `incumbent` placed beyond noise (interleaved timings).
  Comparison compare(Graph<BuiltinOps> const& incumbent, Graph<BuiltinOps> const& challenger) {
    Graph<PlacedOps> const& a = placed(incumbent).graph;
    return cuda::compare(*gpu_, a, placed(challenger).graph, state_->options.rounds);
  }

 private:
  struct State {
    PlacingOptions options;
    placement::CostDatabase db;
    std::unordered_map<std::uint64_t, std::shared_ptr<PlacedGraph const>> placed;
    std::size_t groups_measured = 0;
    State(PlacingOptions o, std::string device) : options(std::move(o)), db(options.database, std::move(device)) {}
  };
  CudaGraphRuntime* gpu_;
  std::shared_ptr<State> state_;  // shared by copies: one database, one memo of placements
};

}  // namespace autograph::cuda
