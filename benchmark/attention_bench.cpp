// Fused attention (cpu/tuned/attention.hpp) against the unfused ops the CPU runtime runs for a
// transformer's attention (models/transformer.hpp: MatMul, Scale, Softmax, MatMul through oneDNN,
// the cpu/ops.hpp kernels), at batch 1, at the attention shapes of the zoo's models (issue 18's
// goal: fused >= 2x faster than the unfused ops at batch 1):
//
//   shape 0  ViT-B/16      12 heads, 197 x 197 tokens, head dim 64  (score matrix 1.9 MB)
//   shape 1  ViT-L/16      16 heads, 197 x 197, 64                  (2.5 MB)
//   shape 2  DETR encoder   8 heads, 1050 x 1050, 32 (25 x 42 feature map at 800 x 1333; 35 MB)
//   shape 3  DETR cross     8 heads, 100 queries x 1050 memory tokens, 32 (3.4 MB)
//   shape 4  DETR decoder   8 heads, 100 x 100, 32 (0.3 MB)
//   shape 5  SETR-Naive-Base (ViT-B at 384) 12 heads, 577 x 577, 64 (16 MB)
//   shape 6  SETR-Naive / -PUP (ViT-L at 384) 16 heads, 577 x 577, 64 (21 MB)
//
// The DETR encoder's and SETR's score matrices no longer fit this machine's caches (1 MiB L2 per
// core, 32 MiB L3 shared with every other process): the unfused chain writes and reads them
// through DRAM four times (matmul out, scale in and out, softmax in and out, matmul in), the
// fused kernel never writes them.
//
//   attention_bench --benchmark_repetitions=10 --benchmark_enable_random_interleaving=true
//                   --benchmark_report_aggregates_only=true
//
// Every kernel gets every core (OpenMP), as the runtime gives a kernel alone on the critical
// path. "Best" is the fastest point of a small sweep, picked by a separate timing (median of 7
// runs per point, once per process) before the timed loop, so the reported number is a fresh
// measurement, not the minimum the sweep saw.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <map>
#include <memory>
#include <string>

#include "autograph/core/tensor.hpp"
#include "autograph/cpu/ops.hpp"
#include "autograph/cpu/runtime.hpp"
#include "autograph/cpu/tuned/attention.hpp"

namespace autograph {
namespace {

using cpu::tuned::Attention;
using cpu::tuned::AttentionConfig;
using cpu::tuned::AttentionProblem;
using cpu::tuned::AttentionSketch;

/// One attention shape of a model at batch 1: heads, query and key tokens, head dim.
struct AttentionShape {
  char const* model;
  std::int64_t heads, tq, tk, d;
};
constexpr AttentionShape shapes[] = {
    {"ViT-B/16", 12, 197, 197, 64},        {"ViT-L/16", 16, 197, 197, 64},       {"DETR encoder self", 8, 1050, 1050, 32},
    {"DETR decoder cross", 8, 100, 1050, 32}, {"DETR decoder self", 8, 100, 100, 32}, {"SETR-Naive-Base", 12, 577, 577, 64},
    {"SETR-Naive/PUP", 16, 577, 577, 64}};
constexpr std::int64_t shape_count = std::size(shapes);
AttentionShape const& shape_of(std::int64_t i) { return shapes[i]; }

int cores() { return std::max(1, omp_get_num_procs()); }

/// The widest vectors this CPU runs, the last value of the space's vector_width knob (what the
/// sweeps fix, whatever the default picks).
std::int64_t simd_width() {
  for (auto const& knob : Attention::knobs(AttentionProblem::transposed_keys(1, 1, 1, 1, 1, 1.f)))
    if (knob.name == "vector_width") return knob.values.back();
  return 4;
}

std::vector<float> random_floats(std::int64_t n, std::uint64_t seed) {
  Tensor t = Tensor::random(Shape{n}, seed, -1.f, 1.f);
  return {t.data().begin(), t.data().end()};
}

/// q [1, H, Tq, D], kT [1, H, D, Tk], v [1, H, Tk, D] and the output, random.
struct Heads {
  AttentionShape shape;
  AttentionProblem problem;
  std::vector<float> q, kt, v, out;
  explicit Heads(std::int64_t index)
      : shape(shape_of(index)),
        problem(AttentionProblem::transposed_keys(shape.heads, shape.tq, shape.tk, shape.d, shape.d, 1.f / std::sqrt(float(shape.d)))),
        q(random_floats(shape.heads * shape.tq * shape.d, 1)),
        kt(random_floats(shape.heads * shape.tk * shape.d, 2)),
        v(random_floats(shape.heads * shape.tk * shape.d, 3)),
        out(static_cast<std::size_t>(shape.heads * shape.tq * shape.d)) {}
};

void run_fused(Heads& h, AttentionConfig const& c, std::vector<float>& workspace) {
  cpu::tuned::attention(h.problem, c, h.q.data(), h.kt.data(), h.v.data(), nullptr, h.out.data(), workspace);
}

double median_seconds(Heads& h, AttentionConfig const& c, int runs) {
  std::vector<float> workspace(cpu::tuned::attention_workspace_floats(h.problem, c));
  run_fused(h, c, workspace);
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    run_fused(h, c, workspace);
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(t.begin(), t.begin() + runs / 2, t.end());
  return t[static_cast<std::size_t>(runs / 2)];
}

/// The sweep: both sketches, block_q {16, 32, 64}, block_k {64, 128, 256}, unroll {4, 8},
/// the widest vectors, every core (the valid points of 36).
AttentionConfig best_of_sweep(std::int64_t index) {
  static std::map<std::int64_t, AttentionConfig> best;
  if (auto it = best.find(index); it != best.end()) return it->second;
  Heads h(index);
  AttentionConfig winner = Attention::default_config(h.problem);
  double fastest = median_seconds(h, winner, 7);
  for (auto sketch : {AttentionSketch::streamed, AttentionSketch::whole_row})
    for (std::int64_t bq : {16, 32, 64})
      for (std::int64_t bk : {64, 128, 256})
        for (std::int64_t unroll : {4, 8}) {
          AttentionConfig c = winner;
          c.sketch = sketch, c.block_q = bq, c.block_k = bk, c.unroll = unroll, c.threads = cores();
          c.vector_width = simd_width();
          if (!Attention::is_valid(h.problem, c)) continue;
          if (double s = median_seconds(h, c, 7); s < fastest) fastest = s, winner = c;
        }
  return best[index] = winner;
}

void fused(benchmark::State& state, AttentionConfig const& c, Heads& h) {
  std::vector<float> workspace(cpu::tuned::attention_workspace_floats(h.problem, c));
  for (auto _ : state) {
    run_fused(h, c, workspace);
    benchmark::ClobberMemory();
  }
  state.SetLabel(std::string(h.shape.model) + ": " + Attention::to_string(c));
  state.counters["GFLOP/s"] = benchmark::Counter(Attention::features(h.problem, c)[0], benchmark::Counter::kIsIterationInvariantRate);
}

void BM_FusedDefault(benchmark::State& state) {
  Heads h(state.range(0));
  fused(state, Attention::default_config(h.problem), h);
}
BENCHMARK(BM_FusedDefault)->DenseRange(0, shape_count - 1)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_FusedBestOfSweep(benchmark::State& state) {
  Heads h(state.range(0));
  fused(state, best_of_sweep(state.range(0)), h);
}
BENCHMARK(BM_FusedBestOfSweep)->DenseRange(0, shape_count - 1)->UseRealTime()->Unit(benchmark::kMicrosecond);

/// One point of the space, the widest vectors and every core: shape, sketch (0 streamed, 1
/// whole_row), block_q, block_k, unroll. How the blocking and the register tile move the time at
/// the long shapes (the README's table of what limits the kernel).
void BM_FusedPoint(benchmark::State& state) {
  Heads h(state.range(0));
  AttentionConfig c = Attention::default_config(h.problem);
  c.sketch = state.range(1) == 0 ? AttentionSketch::streamed : AttentionSketch::whole_row;
  c.block_q = state.range(2), c.block_k = state.range(3), c.unroll = state.range(4), c.threads = cores();
  c.vector_width = simd_width();
  if (std::string why = Attention::why_invalid(h.problem, c); !why.empty()) {
    state.SetLabel(why);
    state.SkipWithError("not a valid point of the space (the label says why)");
    return;
  }
  fused(state, c, h);
}
BENCHMARK(BM_FusedPoint)->ArgsProduct({{2, 5}, {0, 1}, {16, 64}, {64, 256}, {4, 8}})->UseRealTime()->Unit(benchmark::kMicrosecond);

/// One node of the unfused chain, prepared by its CPU kernel with every core and bound to
/// buffers (as the runtime's arena would bind it).
struct Node {
  cpu::Preparation prep;
  std::vector<std::vector<float>> workspace;
  std::vector<cpu::Runner> runners;
  template <class Op>
  Node(Op const& op, std::vector<TensorDesc> in, std::vector<float const*> const& inputs, float* output)
      : prep(std::string(Op::name), in, op.infer(in), {}, cores()) {
    cpu::Kernel<Op>::prepare(op, prep);
    std::vector<void*> ws;
    for (std::size_t bytes : prep.workspaces()) ws.push_back(workspace.emplace_back((bytes + 3) / 4 + 1).data());
    std::vector<float*> out{output};
    cpu::Io io{inputs, out, ws};
    for (auto const& step : prep.steps()) runners.push_back(step.bind(io));
  }
  void run() const {
    for (auto const& r : runners) r();
  }
};

/// MatMul, [Scale,] Softmax, MatMul as ViT's graph has them (with_scale), or without the Scale;
/// only node `only` of the chain when it is >= 0 (where the unfused time goes).
void unfused(benchmark::State& state, bool with_scale, int only = -1) {
  Heads h(state.range(0));
  auto const& [model, heads, tq, tk, d] = h.shape;
  TensorDesc const q{Shape{1, heads, tq, d}}, kt{Shape{1, heads, d, tk}}, v{Shape{1, heads, tk, d}};
  TensorDesc const scores{Shape{1, heads, tq, tk}};
  std::vector<float> s(static_cast<std::size_t>(scores.numel())), scaled(s.size()), p(s.size());
  std::vector<std::unique_ptr<Node>> chain;
  chain.push_back(std::make_unique<Node>(MatMul{}, std::vector{q, kt}, std::vector<float const*>{h.q.data(), h.kt.data()}, s.data()));
  float const* logits = s.data();
  if (with_scale) {
    chain.push_back(std::make_unique<Node>(Scale{.scale = h.problem.scale}, std::vector{scores}, std::vector<float const*>{s.data()}, scaled.data()));
    logits = scaled.data();
  }
  chain.push_back(std::make_unique<Node>(Softmax{.axis = -1}, std::vector{scores}, std::vector<float const*>{logits}, p.data()));
  chain.push_back(std::make_unique<Node>(MatMul{}, std::vector{scores, v}, std::vector<float const*>{p.data(), h.v.data()}, h.out.data()));
  int const before = omp_get_max_threads();
  omp_set_num_threads(cores());  // what the runtime sets around each kernel (cpu/kernel.hpp)
  for (auto const& n : chain) n->run();  // every intermediate written once, also when one node is timed
  for (auto _ : state) {
    if (only >= 0) chain[static_cast<std::size_t>(only)]->run();
    else
      for (auto const& n : chain) n->run();
    benchmark::ClobberMemory();
  }
  omp_set_num_threads(before);
  char const* steps[] = {"oneDNN matmul q@kT", "oneDNN scale", "oneDNN softmax", "oneDNN matmul p@v"};
  state.SetLabel(std::string(model) + ": " +
                 (only >= 0   ? steps[only]
                  : with_scale ? "oneDNN matmul, scale, softmax, matmul"
                               : "oneDNN matmul, softmax, matmul"));
}

void BM_UnfusedWithScale(benchmark::State& state) { unfused(state, true); }
BENCHMARK(BM_UnfusedWithScale)->DenseRange(0, shape_count - 1)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_UnfusedNoScale(benchmark::State& state) { unfused(state, false); }
BENCHMARK(BM_UnfusedNoScale)->DenseRange(0, shape_count - 1)->UseRealTime()->Unit(benchmark::kMicrosecond);

/// One node of the chain with the scale: 0 matmul q@kT, 1 scale, 2 softmax, 3 matmul p@v.
void BM_UnfusedStep(benchmark::State& state) { unfused(state, true, static_cast<int>(state.range(1))); }
BENCHMARK(BM_UnfusedStep)->ArgsProduct({benchmark::CreateDenseRange(0, shape_count - 1, 1), {0, 1, 2, 3}})->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace autograph

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("cpu_model", autograph::cpu::cpu_model_name());
  benchmark::AddCustomContext("cores", std::to_string(autograph::cores()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
