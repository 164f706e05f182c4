// The cost layer on the search's hot path: one kernel's cost (memoized and not), every node of
// a model, and a graph cost policy over a costed model.
#include <benchmark/benchmark.h>

#include "autograph/cost/policy.hpp"
#include "autograph/cost/roofline.hpp"
#include "autograph/models/zoo.hpp"

namespace autograph {
namespace {

struct Conv {
  Graph<> g;
  NodeId id;
  std::vector<TensorDesc> in;
  Conv() {
    GraphBuilder b;
    auto y = b.conv2d(b.input("x", {1, 192, 35, 35}), 64, {1, 1});
    g = std::move(b).build({y});
    id = y.node;
    in = input_descs(g, id);
  }
};

void BM_RooflineCompute(benchmark::State& state) {
  Conv c;
  for (auto _ : state) {
    KernelCost k = RooflineCost::compute(devices::H100::spec, c.g[c.id].op, c.in, c.g[c.id].outputs);
    benchmark::DoNotOptimize(&k);
  }
}
BENCHMARK(BM_RooflineCompute);

void BM_RooflineMemoized(benchmark::State& state) {
  Conv c;
  RooflineCost m;
  for (auto _ : state) {
    KernelCost k = m.estimate(c.g[c.id].op, c.in, c.g[c.id].outputs);
    benchmark::DoNotOptimize(&k);
  }
}
BENCHMARK(BM_RooflineMemoized);

void BM_NodeCosts(benchmark::State& state) {
  auto g = models::build("inception_v3");
  RooflineCost m;
  for (auto _ : state) benchmark::DoNotOptimize(node_costs(g, m).us.data());
  state.counters["nodes"] = static_cast<double>(g.num_nodes());
}
BENCHMARK(BM_NodeCosts)->Unit(benchmark::kMicrosecond);

void BM_MixedCriticalPath(benchmark::State& state) {
  auto g = models::build("inception_v3");
  RooflineCost m;
  auto costs = node_costs(g, m);
  for (auto _ : state) {
    double c = MixedCriticalPath<>{}(costs);
    benchmark::DoNotOptimize(&c);
  }
}
BENCHMARK(BM_MixedCriticalPath)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace autograph
