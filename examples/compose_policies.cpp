// Composing the optimizer from policy types: the same search with the paper's cost policy,
// with TASO's, and with one written here, on the same model and simulated runtime.
//
//   Optimizer<Graph, Rules, CostPolicy, Runtime>
//     Rules       a compile-time rule list (rules::Default, or a subset such as rules::Fusions)
//     CostPolicy  how searches rank candidates: SumCost, CriticalPath, MixedCriticalPath<α>, yours
//     Runtime     what measures the top candidates: SimulatedRuntime<Device, Schedule> here,
//                 CudaGraphRuntime on a GPU
//
// Every optimized graph is checked against the original on the reference executor.
#include <autograph/autograph.hpp>

#include <cstdio>
#include <string_view>

namespace my {
using namespace autograph;

/// A user-defined cost policy: the critical path alone, plus a fixed price per kernel, for a
/// device that overlaps everything but launches kernels one at a time.
struct CriticalPathPlusLaunches {
  static constexpr std::string_view name = "critical-path+launches";
  double operator()(CostedGraph auto const& g) const {
    std::size_t kernels = 0;
    for (NodeId id : g.graph->node_ids()) kernels += g.us[id] > 0;
    return critical_path_cost(g) + 2.0 * static_cast<double>(kernels);
  }
};
static_assert(CostPolicy<CriticalPathPlusLaunches>);

template <class Rules, class Policy, class Runtime>
bool run(std::string_view what, Graph<> const& g) {
  Optimizer<Graph<>, Rules, Policy, Runtime> opt;
  auto r = opt.optimize(g);
  auto v = verify_equivalent(g, r.graph, 1e-3, 7);
  std::printf("%-44s %8.4f -> %8.4f ms  %5.2fx  %zu rounds, %zu measured, %.2f s, %s\n", std::string(what).c_str(), r.initial_latency_ms,
              r.latency_ms, r.initial_latency_ms / r.latency_ms, r.rounds, r.measured, r.search_seconds,
              v.passed ? "verified" : ("NOT EQUIVALENT: " + v.why).c_str());
  return v.passed && r.latency_ms <= r.initial_latency_ms;
}

}  // namespace my

int main() {
  using namespace autograph;
  auto g = models::build("inception_v3", {.resolution = 75});
  fill_random_weights(g, 3);
  std::printf("Inception-v3 (75x75), simulated H100, Nimble streams — latency before -> after\n");
  using Nimble = SimulatedRuntime<devices::H100, schedule::Nimble>;
  using OneStream = SimulatedRuntime<devices::H100, schedule::Sequential>;
  bool ok = true;
  ok &= my::run<rules::Default, MixedCriticalPath<0.25>, Nimble>("Default rules, MixedCriticalPath<0.25>", g);
  ok &= my::run<rules::Default, MixedCriticalPath<1.0>, Nimble>("Default rules, MixedCriticalPath<1.0>", g);
  ok &= my::run<rules::Default, SumCost, OneStream>("Default rules, SumCost, one stream (TASO-like)", g);
  ok &= my::run<rules::Fusions, MixedCriticalPath<0.25>, Nimble>("Fusions only, MixedCriticalPath<0.25>", g);
  ok &= my::run<rules::Default, my::CriticalPathPlusLaunches, Nimble>("Default rules, a user-defined policy", g);
  return ok ? 0 : 1;
}
