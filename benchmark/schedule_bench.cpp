// Inter-operator schedules of the IOS paper's benchmark networks on a simulated H100 SXM:
// how long each policy takes to decide, and the (simulated) latency of what it decides.
//
//   BM_Ios/<model>        the IOS dynamic programme, stage costs from the simulated runtime.
//                         Counters: sequential_ms, greedy_ms, nimble_ms, ios_ms (simulated
//                         latency of each policy's schedule), ios_estimate_ms (Σ stage costs,
//                         the DP's objective), search_s, blocks, transitions, streams, waits.
//   BM_Nimble/<model>     Nimble's stream assignment (matching + minimal waits).
//   BM_Simulate/<model>   one simulated run of the Nimble schedule.
//
// The IOS thesis reports 48 s of search for Inception-v3 and about an hour for NASNet-A and
// RandWire with measured stage costs on a GPU; here stage costs come from the roofline and
// the simulator, so the times compare the search, not the measurement. Every latency is an
// estimate: "simulated (roofline, H100 SXM)".
#include <benchmark/benchmark.h>

#include <string_view>

#include "autograph/models/zoo.hpp"
#include "autograph/runtime/simulated_runtime.hpp"
#include "autograph/schedule/greedy.hpp"
#include "autograph/schedule/ios.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/sequential.hpp"

namespace autograph {
namespace {

void BM_Ios(benchmark::State& state, std::string_view model) {
  auto g = models::build(model);
  SimulatedRuntime<> rt;
  KernelDag dag(g);
  auto nimble = schedule::nimble(dag);
  auto greedy = schedule::Greedy{}(g, rt);
  schedule::IosResult<BuiltinOps> r{g, {}, {}, {}, {}, {}};
  for (auto _ : state) {
    r = schedule::Ios{}.run(g, rt);
    benchmark::DoNotOptimize(r.schedule.streams.data());
  }
  state.SetLabel(rt.kind());
  state.counters["kernels"] = static_cast<double>(dag.size());
  state.counters["width"] = static_cast<double>(dag.width());
  state.counters["sequential_ms"] = rt.measure(g, schedule::sequential(dag));
  state.counters["greedy_ms"] = rt.measure(greedy.graph, greedy.schedule);
  state.counters["nimble_ms"] = rt.measure(g, nimble);
  state.counters["nimble_streams"] = static_cast<double>(nimble.num_streams());
  state.counters["nimble_waits"] = static_cast<double>(nimble.num_waits());
  state.counters["ios_ms"] = rt.measure(r.graph, r.schedule);
  state.counters["ios_estimate_ms"] = r.stats.estimated_ms;
  state.counters["ios_streams"] = static_cast<double>(r.schedule.num_streams());
  state.counters["ios_waits"] = static_cast<double>(r.schedule.num_waits());
  state.counters["ios_stages"] = static_cast<double>(r.stages.size());
  state.counters["ios_merges"] = static_cast<double>(r.stats.merges);
  state.counters["search_s"] = r.stats.search_seconds;
  state.counters["blocks"] = static_cast<double>(r.stats.blocks);
  state.counters["transitions"] = static_cast<double>(r.stats.transitions);
}

void BM_Nimble(benchmark::State& state, std::string_view model) {
  auto g = models::build(model);
  KernelDag dag(g);
  for (auto _ : state) {
    auto s = schedule::nimble(dag);
    benchmark::DoNotOptimize(s.streams.data());
  }
}

void BM_Simulate(benchmark::State& state, std::string_view model) {
  auto g = models::build(model);
  SimulatedRuntime<> rt;
  auto s = schedule::nimble(KernelDag(g));
  auto prepared = rt.prepare(g);
  for (auto _ : state) {
    double ms = prepared.measure(s);
    benchmark::DoNotOptimize(&ms);
  }
  state.counters["kernels"] = static_cast<double>(s.num_kernels());
}

#define AUTOGRAPH_SCHEDULE_BENCH(model)                                                                \
  BENCHMARK_CAPTURE(BM_Ios, model, #model)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();   \
  BENCHMARK_CAPTURE(BM_Nimble, model, #model)->Unit(benchmark::kMicrosecond);                          \
  BENCHMARK_CAPTURE(BM_Simulate, model, #model)->Unit(benchmark::kMicrosecond)

AUTOGRAPH_SCHEDULE_BENCH(inception_v3);
AUTOGRAPH_SCHEDULE_BENCH(nasnet_a_large);
AUTOGRAPH_SCHEDULE_BENCH(randwire_ws);
AUTOGRAPH_SCHEDULE_BENCH(squeezenet1_1);

}  // namespace
}  // namespace autograph
