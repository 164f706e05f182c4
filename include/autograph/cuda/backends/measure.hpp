#pragma once
// Placement on the CUDA runtime by measurement on the GPU (issue 17's GPU side):
// - measured_pricing(): a candidate group's cost is the profiler's marginal launch time of the
//   node it becomes (cuda/profiler.hpp's measure_signature: (T(copies) - T(1)) / (copies - 1),
//   each T a captured CUDA graph's mean replay), kept in the persistent cost database under
//   this GPU's name (cuda_device_name), so a second run measures nothing it knows;
// - compare(): two placed graphs timed interleaved on the GPU, runtime/noise.hpp's verdict;
// - place_guarded(): the single-backend placements and the op-level DP's, the best single
//   backend kept unless the DP's measures faster beyond noise (placement/measured_choice.hpp);
// - place_graph_level(): Collage's evolutionary search (placement/graph_level_search.hpp),
//   every individual measured whole on the GPU, offloading groups to cuDNN.
// A recording runtime (test/cuda/recording/) runs all of it without a GPU: its timings are
// fakes, so only the calls' legality is checked there, never a verdict.
#include <string>
#include <utility>
#include <vector>

#include "autograph/cuda/backends/place.hpp"
#include "autograph/cuda/profiler.hpp"
#include "autograph/cuda/runtime.hpp"
#include "autograph/placement/graph_level_search.hpp"
#include "autograph/schedule/nimble.hpp"

namespace autograph::cuda {

/// The cost database's name for this GPU: its CUDA name and how groups are timed.
inline std::string cuda_device_name(CudaGraphRuntime& gpu) {
  return gpu.device().info().name + " (CUDA graphs, marginal launch, " + (gpu.options().allow_tf32 ? "TF32)" : "FP32)");
}

/// Groups priced by measurement on `gpu`, through `db` (see the file comment).
inline GroupPricing measured_pricing(CudaGraphRuntime& gpu, placement::CostDatabase& db, int copies = 5,
                                     std::function<void(placement::CostProgress const&)> progress = {}) {
  return {"measured on " + gpu.device().info().name,
          [&gpu, copies](AnyOp const& node, std::vector<TensorDesc> const& in) {
            // A node that launches nothing at inference (a view: Reshape, a contiguous Split)
            // costs nothing, as profile() counts it (kernel_mask): no capture to time.
            if (!runs_kernel(node, in, node.infer(in))) return 0.0;
            return measure_signature<PlacedOps>(node, std::span<TensorDesc const>(in), gpu, {.copies = copies, .device_key = {}});
          },
          &db, std::move(progress)};
}

/// Latency in ms of a placed graph under Nimble's streams (what CudaGraphRuntime::measure does).
inline double measure_placed(CudaGraphRuntime& gpu, Graph<PlacedOps> const& g) { return gpu.measure(g, schedule::nimble(KernelDag(g))); }

/// Whether `challenger` runs faster than `incumbent` beyond noise: each lowered once, then
/// `rounds` timings of each (the mean of the runtime's back-to-back replays) interleaved, so
/// clock changes hit both alike; compare_samples' verdict on the two samples.
inline Comparison compare(CudaGraphRuntime& gpu, Graph<PlacedOps> const& incumbent, Graph<PlacedOps> const& challenger, int rounds = 7) {
  PreparedGraph a = gpu.prepare(incumbent), b = gpu.prepare(challenger);
  Schedule sa = schedule::nimble(KernelDag(incumbent)), sb = schedule::nimble(KernelDag(challenger));
  std::vector<double> ta, tb;
  for (int r = 0; r < rounds; ++r) {
    ta.push_back(a.measure(sa));
    tb.push_back(b.measure(sb));
  }
  Comparison c = compare_samples(ta, tb);
  c.runs = static_cast<std::size_t>(rounds);
  return c;
}

struct GuardedPlacement {
  PlacedGraph kept;                            // its label says which
  std::vector<PlacedGraph> contenders;         // the single backends, then the op-level placement
  std::vector<placement::Decision> decisions;  // the choice's comparisons
};

/// The single-backend placements of `singles` and the DP's over every backend, all priced by
/// `pricing`; the first single backend holds the place and each later contender takes it only
/// when compare() calls it faster beyond noise (never slower than the best single backend).
template <class... B>
GuardedPlacement place_guarded(Backends<B...> backends, Graph<BuiltinOps> const& g, CudaGraphRuntime& gpu, GroupPricing const& pricing,
                               std::vector<SingleBackend> const& singles, int rounds = 7) {
  GuardedPlacement r;
  for (auto const& s : singles) {
    r.contenders.push_back(place(backends, g, pricing, {.alone = s.alone}));
    r.contenders.back().label = s.label;
  }
  r.contenders.push_back(place(backends, g, pricing));
  std::vector<std::pair<std::string, PlacedGraph const*>> contenders;
  for (auto const& c : r.contenders) contenders.emplace_back(c.label, &c);
  auto choice = placement::choose_measured<PlacedGraph>(
      contenders, [&](PlacedGraph const& a, PlacedGraph const& b) { return compare(gpu, a.graph, b.graph, rounds); },
      [](PlacedGraph const& a, PlacedGraph const& b) { return placement::same_placement(a.placement, b.placement); });
  r.decisions = std::move(choice.decisions);
  r.kept = r.contenders[choice.kept];
  return r;
}

struct GraphLevelOptions {
  std::string target = "cudnn";  // the backend groups are offloaded to (on the GPU, the one whose convolutions the DP may have left)
  double budget_seconds = 10;    // measuring individuals; the choice's comparisons come after
  std::size_t population = 8, children = 8;
  std::uint64_t seed = 1;
  int rounds = 7;                // interleaved timings per side in each comparison
};

struct GraphLevelPlaced {
  Graph<PlacedOps> graph;
  std::vector<std::string> node_backend;
  placement::GraphSearchResult search;  // search.placement.cost: its median in ms
};

/// The graph-level placement of `g` from `op_level` (place() on `g`), each individual measured
/// whole on `gpu`; `incumbents` (labelled placements of `g` by place(), best first) seed the
/// search and hold the place unless beaten beyond noise.
/// @throws Error when the target is not a backend of the placement.
template <class... B>
GraphLevelPlaced place_graph_level(Backends<B...> backends, Graph<BuiltinOps> const& g, PlacedGraph const& op_level,
                                   std::vector<PlacedGraph const*> const& incumbents, CudaGraphRuntime& gpu, GraphLevelOptions const& o = {}) {
  auto const& names = op_level.placement.backends;
  auto it = std::ranges::find(names, o.target);
  if (it == names.end()) throw Error("cuda::place_graph_level(): no backend called '" + o.target + "' in the placement");
  GraphFacts<BuiltinOps> facts(g);
  std::vector<placement::Incumbent> inc;
  for (PlacedGraph const* pg : incumbents) inc.push_back({pg->label, pg->placement});
  auto measure = [&](placement::Placement const& p) { return measure_placed(gpu, placed_graph(backends, g, p)); };
  auto cmp = [&](placement::Placement const& a, placement::Placement const& b) {
    return compare(gpu, placed_graph(backends, g, a), placed_graph(backends, g, b), o.rounds);
  };
  GraphLevelPlaced r;
  r.search = placement::graph_level_search(facts, std::span<placement::Candidate const>(op_level.candidate_groups),
                                           std::span<double const>(op_level.costs.us), op_level.placement,
                                           std::span<placement::Incumbent const>(inc), measure, cmp,
                                           {.target = static_cast<std::uint32_t>(it - names.begin()), .budget_seconds = o.budget_seconds,
                                            .population = o.population, .children = o.children, .seed = o.seed});
  r.graph = placed_graph(backends, g, r.search.placement, &r.node_backend);
  return r;
}

}  // namespace autograph::cuda
