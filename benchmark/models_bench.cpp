// How long it takes to build each zoo model's graph (shape-only weights) and to compute its
// statistics (graph_stats: the width is a maximum matching over the reachability order).
#include <autograph/graph/stats.hpp>
#include <autograph/models/zoo.hpp>

#include <benchmark/benchmark.h>

#include <string>

namespace {

using namespace autograph;

void build_model(benchmark::State& state, std::string_view name) {
  auto const& m = models::model_info(name);
  std::size_t nodes = 0;
  for (auto _ : state) {
    Graph<> g = m.build({});
    nodes = g.num_nodes();
    benchmark::DoNotOptimize(g);
  }
  state.counters["nodes"] = static_cast<double>(nodes);
}

void model_stats(benchmark::State& state, std::string_view name) {
  Graph<> g = models::build(name);
  for (auto _ : state) benchmark::DoNotOptimize(graph_stats(g));
  state.counters["operators"] = static_cast<double>(graph_stats(g).operators);
}

int register_all() {
  for (auto const& m : models::zoo()) {
    benchmark::RegisterBenchmark(("build/" + std::string(m.name)).c_str(), build_model, m.name)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("stats/" + std::string(m.name)).c_str(), model_stats, m.name)->Unit(benchmark::kMillisecond);
  }
  return 0;
}
int const registered = register_all();

}  // namespace
