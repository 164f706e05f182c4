// The tunable matmul with bias and activation (cpu/tuned/matmul_epilogue.hpp) at ViT-B/16's
// linear layers, batch 1 (197 tokens): oneDNN with plain and with blocked weights, and the own
// engine's tiles, the best of a small sweep (picked by a separate timing, median of 5 runs per
// point, once per process) — the measurement issue 18 asks for before choosing what to tune.
//
//   matmul_epilogue_bench --benchmark_repetitions=10 --benchmark_enable_random_interleaving=true
//                         --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "autograph/core/tensor.hpp"
#include "autograph/cpu/runtime.hpp"
#include "autograph/cpu/tuned/matmul_epilogue.hpp"

namespace autograph {
namespace {

using cpu::tuned::MatmulEngine;
using cpu::tuned::MatmulEpilogue;
using cpu::tuned::MatmulEpilogueConfig;
using cpu::tuned::MatmulEpiloguePlan;
using cpu::tuned::MatmulEpilogueProblem;

int cores() { return std::max(1, omp_get_num_procs()); }

std::vector<float> random_floats(std::int64_t n, std::uint64_t seed) {
  Tensor t = Tensor::random(Shape{n}, seed, -1.f, 1.f);
  return {t.data().begin(), t.data().end()};
}

/// ViT-B/16's linear layers at 197 tokens: 0 qkv (768 -> 2304), 1 mlp up (768 -> 3072, its
/// GELU here a ReLU: the ops have no GELU activation), 2 mlp down (3072 -> 768), 3 out proj.
MatmulEpilogueProblem layer(std::int64_t i) {
  std::int64_t const n[] = {2304, 3072, 768, 768}, k[] = {768, 768, 3072, 768};
  return {.m = 197, .n = n[i], .k = k[i], .has_bias = true, .act = i == 1 ? Activation::relu : Activation::none};
}

struct Data {
  std::vector<float> a, b, bias, c;
  explicit Data(MatmulEpilogueProblem const& p)
      : a(random_floats(p.m * p.k, 1)), b(random_floats(p.k * p.n, 2)), bias(random_floats(p.n, 3)), c(static_cast<std::size_t>(p.m * p.n)) {}
};

double median_seconds(MatmulEpilogueProblem const& p, MatmulEpilogueConfig const& c, Data& d) {
  MatmulEpiloguePlan plan(p, c, d.b.data());
  plan.run(d.a.data(), d.b.data(), d.bias.data(), d.c.data());
  std::vector<double> t;
  for (int i = 0; i < 5; ++i) {
    auto start = std::chrono::steady_clock::now();
    plan.run(d.a.data(), d.b.data(), d.bias.data(), d.c.data());
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(t.begin(), t.begin() + 2, t.end());
  return t[2];
}

/// mc {32, 64, 128} x nc {128, 256, 512} x kc {128, 256, 512} x unroll {4, 8}, widest vectors,
/// every core.
MatmulEpilogueConfig best_own(std::int64_t i) {
  static std::map<std::int64_t, MatmulEpilogueConfig> best;
  if (auto it = best.find(i); it != best.end()) return it->second;
  MatmulEpilogueProblem p = layer(i);
  Data d(p);
  auto ks = MatmulEpilogue::knobs(p);
  MatmulEpilogueConfig winner;
  double fastest = 1e30;
  for (std::int64_t mc : {32, 64, 128})
    for (std::int64_t nc : {128, 256, 512})
      for (std::int64_t kc : {128, 256, 512})
        for (std::int64_t unroll : {4, 8}) {
          MatmulEpilogueConfig c{.engine = MatmulEngine::own, .mc = mc, .nc = nc, .kc = kc, .vector_width = ks[4].values.back(), .unroll = unroll,
                                 .threads = cores()};
          if (!MatmulEpilogue::is_valid(p, c)) continue;
          if (double s = median_seconds(p, c, d); s < fastest) fastest = s, winner = c;
        }
  return best[i] = winner;
}

void run(benchmark::State& state, MatmulEpilogueConfig const& c) {
  MatmulEpilogueProblem p = layer(state.range(0));
  Data d(p);
  MatmulEpiloguePlan plan(p, c, d.b.data());
  for (auto _ : state) {
    plan.run(d.a.data(), d.b.data(), d.bias.data(), d.c.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(p.to_string() + " | " + MatmulEpilogue::to_string(c));
  state.counters["GFLOP/s"] = benchmark::Counter(MatmulEpilogue::features(p, c)[0], benchmark::Counter::kIsIterationInvariantRate);
}

void BM_OnednnPlain(benchmark::State& state) { run(state, MatmulEpilogue::default_config(layer(state.range(0)))); }
void BM_OnednnBlocked(benchmark::State& state) {
  MatmulEpilogueConfig c = MatmulEpilogue::default_config(layer(state.range(0)));
  c.blocked_weights = true;
  run(state, c);
}
void BM_OwnBestOfSweep(benchmark::State& state) { run(state, best_own(state.range(0))); }
BENCHMARK(BM_OnednnPlain)->DenseRange(0, 3)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OnednnBlocked)->DenseRange(0, 3)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OwnBestOfSweep)->DenseRange(0, 3)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace autograph

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("cpu_model", autograph::cpu::cpu_model_name());
  benchmark::AddCustomContext("cores", std::to_string(autograph::cores()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
