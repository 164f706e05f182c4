// The reference CPU kernels, one op at a time and as a whole network (Inception-v3 at
// 299x299, built here with BatchNorm folded into the convolutions, as TASO's graphs have it).
// Counters: GFLOP/s for the GEMM-bound kernels, GB/s for data movement, both per wall-clock
// second (OpenBLAS runs its own threads, which the main thread's CPU time would not count).
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "autograph/runtime/reference_executor.hpp"

namespace autograph {
namespace {

/// Runs op's kernel on `in` once per iteration; reports `flops` per run as a rate.
template <class Op>
void run_kernel(benchmark::State& state, Op const& op, std::vector<Tensor> const& in, double flops = 0, double bytes = 0) {
  std::vector<TensorDesc> descs;
  for (Tensor const& t : in) descs.push_back({t.shape()});
  std::vector<TensorDesc> out = op.infer(descs);
  for (auto _ : state) {
    auto y = reference::Kernel<Op>{}(op, in, out);
    benchmark::DoNotOptimize(y.front().ptr());
  }
  if (flops > 0) state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  if (bytes > 0) state.counters["GB/s"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

double conv_flops(Conv2D const& op, Shape x, Shape w) {
  std::vector<TensorDesc> in = {{x}, {w}};
  return op.flops(in, op.infer(in));
}

void BM_Conv3x3_64x56x56(benchmark::State& state) {  // a ResNet-50 stage-1 conv
  Conv2D op{.pad = {1, 1, 1, 1}, .act = Activation::relu};
  Shape x{1, 64, 56, 56}, w{64, 64, 3, 3};
  run_kernel(state, op, {Tensor::random(x, 1), Tensor::random(w, 2), Tensor::random({64}, 3)}, conv_flops(op, x, w));
}
BENCHMARK(BM_Conv3x3_64x56x56)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Conv1x1_256to64x56x56(benchmark::State& state) {  // no im2col
  Conv2D op{};
  Shape x{1, 256, 56, 56}, w{64, 256, 1, 1};
  run_kernel(state, op, {Tensor::random(x, 1), Tensor::random(w, 2)}, conv_flops(op, x, w));
}
BENCHMARK(BM_Conv1x1_256to64x56x56)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Conv7x7s2_3x224x224(benchmark::State& state) {  // a ResNet stem: few channels, big im2col
  Conv2D op{.stride = {2, 2}, .pad = {3, 3, 3, 3}};
  Shape x{1, 3, 224, 224}, w{64, 3, 7, 7};
  run_kernel(state, op, {Tensor::random(x, 1), Tensor::random(w, 2)}, conv_flops(op, x, w));
}
BENCHMARK(BM_Conv7x7s2_3x224x224)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DepthwiseConv3x3_128x56x56(benchmark::State& state) {  // one GEMV-sized GEMM per group
  Conv2D op{.pad = {1, 1, 1, 1}, .groups = 128};
  Shape x{1, 128, 56, 56}, w{128, 1, 3, 3};
  run_kernel(state, op, {Tensor::random(x, 1), Tensor::random(w, 2)}, conv_flops(op, x, w));
}
BENCHMARK(BM_DepthwiseConv3x3_128x56x56)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MatMul1024(benchmark::State& state) {
  run_kernel(state, MatMul{}, {Tensor::random({1024, 1024}, 1), Tensor::random({1024, 1024}, 2)}, 2.0 * 1024 * 1024 * 1024);
}
BENCHMARK(BM_MatMul1024)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_BatchedMatMul_12x128x64x128(benchmark::State& state) {  // attention scores, BERT-base heads
  run_kernel(state, MatMul{}, {Tensor::random({1, 12, 128, 64}, 1), Tensor::random({1, 12, 64, 128}, 2)}, 2.0 * 12 * 128 * 64 * 128);
}
BENCHMARK(BM_BatchedMatMul_12x128x64x128)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_MaxPool3x3s2_64x112x112(benchmark::State& state) {
  Pool2D op{.kind = PoolKind::max, .kernel = {3, 3}, .stride = {2, 2}, .pad = {1, 1, 1, 1}};
  run_kernel(state, op, {Tensor::random({1, 64, 112, 112}, 1)}, 0, 4.0 * 64 * (112 * 112 + 56 * 56));
}
BENCHMARK(BM_MaxPool3x3s2_64x112x112)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_AddBroadcastBias_64x56x56(benchmark::State& state) {
  run_kernel(state, Add{}, {Tensor::random({1, 64, 56, 56}, 1), Tensor::random({1, 64, 1, 1}, 2)}, 0, 2 * 4.0 * 64 * 56 * 56);
}
BENCHMARK(BM_AddBroadcastBias_64x56x56)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_Softmax_12x128x128(benchmark::State& state) {
  run_kernel(state, Softmax{}, {Tensor::random({12, 128, 128}, 1)}, 0, 2 * 4.0 * 12 * 128 * 128);
}
BENCHMARK(BM_Softmax_12x128x128)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_LayerNorm_128x768(benchmark::State& state) {
  run_kernel(state, LayerNorm{}, {Tensor::random({1, 128, 768}, 1), Tensor::random({768}, 2), Tensor::random({768}, 3)}, 0,
             2 * 4.0 * 128 * 768);
}
BENCHMARK(BM_LayerNorm_128x768)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_Transpose_128x12x64(benchmark::State& state) {  // split heads: [1,128,12,64] -> [1,12,128,64]
  run_kernel(state, Transpose{.perm = {0, 2, 1, 3}}, {Tensor::random({1, 128, 12, 64}, 1)}, 0, 2 * 4.0 * 128 * 12 * 64);
}
BENCHMARK(BM_Transpose_128x12x64)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_ConcatChannels_4x192x17x17(benchmark::State& state) {  // an Inception-C block's output
  std::vector<Tensor> in;
  for (std::uint64_t i = 0; i < 4; ++i) in.push_back(Tensor::random({1, 192, 17, 17}, i));
  run_kernel(state, Concat{.axis = 1}, in, 0, 2 * 4.0 * 4 * 192 * 17 * 17);
}
BENCHMARK(BM_ConcatChannels_4x192x17x17)->Unit(benchmark::kMicrosecond)->UseRealTime();

// ---- Inception-v3 ---------------------------------------------------------------------------

/// Builds Inception-v3 (Szegedy et al. 2016; torchvision's layer sizes) on a Graph, each
/// conv carrying its folded BatchNorm as a bias and a fused ReLU. Weights are Kaiming-uniform.
class InceptionV3 {
 public:
  explicit InceptionV3(std::int64_t batch) {
    Value x = in(g_.add(Input{{Shape{batch, 3, 299, 299}}, "image"}, {}));
    x = conv(x, 32, 3, 3, {2, 2});
    x = conv(x, 32, 3, 3);
    x = conv(x, 64, 3, 3, {1, 1}, {1, 1, 1, 1});
    x = max_pool(x);
    x = conv(x, 80, 1, 1);
    x = conv(x, 192, 3, 3);
    x = max_pool(x);
    for (std::int64_t pool_features : {32, 64, 64}) x = block_a(x, pool_features);
    x = block_b(x);
    for (std::int64_t c7 : {128, 160, 160, 192}) x = block_c(x, c7);
    x = block_d(x);
    x = block_e(block_e(x));
    x = in(g_.add(Pool2D{.kind = PoolKind::avg, .global = true}, {x}));
    x = in(g_.add(Reshape{.shape = {batch, -1}}, {x}));
    x = in(g_.add(MatMul{}, {x, weight({2048, 1000}, 2048)}));
    x = in(g_.add(Add{}, {x, weight({1000}, 0)}));
    x = in(g_.add(Softmax{}, {x}));
    g_.set_outputs({x});
  }
  Graph<> const& graph() const { return g_; }

 private:
  static Value in(NodeId id) { return Value{id, 0}; }
  Value weight(Shape s, std::int64_t fan_in) {
    float bound = fan_in > 0 ? std::sqrt(6.f / static_cast<float>(fan_in)) : 0.1f;
    Tensor t = Tensor::random(s, ++seed_, -bound, bound);
    return in(g_.add(Weight{.desc = TensorDesc{s}, .data = t.storage(), .id = seed_}, {}));
  }
  Value conv(Value x, std::int64_t k, std::int64_t r, std::int64_t s, std::array<std::int64_t, 2> stride = {1, 1},
             std::array<std::int64_t, 4> pad = {0, 0, 0, 0}) {
    std::int64_t c = g_.desc(x).shape[1];
    Conv2D op{.stride = stride, .pad = pad, .act = Activation::relu};
    return in(g_.add(op, {x, weight({k, c, r, s}, c * r * s), weight({k}, 0)}));
  }
  Value same(Value x, std::int64_t k, std::int64_t r, std::int64_t s) { return conv(x, k, r, s, {1, 1}, Conv2D::same_pad(r, s)); }
  Value max_pool(Value x) { return in(g_.add(Pool2D{.kind = PoolKind::max, .kernel = {3, 3}, .stride = {2, 2}}, {x})); }
  Value avg_pool_same(Value x) {
    return in(g_.add(Pool2D{.kind = PoolKind::avg, .kernel = {3, 3}, .pad = {1, 1, 1, 1}, .count_include_pad = true}, {x}));
  }
  Value concat(std::vector<Value> const& xs) { return in(g_.add(Concat{.axis = 1}, std::span<Value const>(xs))); }

  Value block_a(Value x, std::int64_t pool_features) {
    Value b1 = same(x, 64, 1, 1);
    Value b5 = same(same(x, 48, 1, 1), 64, 5, 5);
    Value b3 = same(same(same(x, 64, 1, 1), 96, 3, 3), 96, 3, 3);
    Value bp = same(avg_pool_same(x), pool_features, 1, 1);
    return concat({b1, b5, b3, bp});
  }
  Value block_b(Value x) {
    Value b3 = conv(x, 384, 3, 3, {2, 2});
    Value bd = conv(same(same(x, 64, 1, 1), 96, 3, 3), 96, 3, 3, {2, 2});
    return concat({b3, bd, max_pool(x)});
  }
  Value block_c(Value x, std::int64_t c7) {
    Value b1 = same(x, 192, 1, 1);
    Value b7 = same(same(same(x, c7, 1, 1), c7, 1, 7), 192, 7, 1);
    Value bd = same(same(same(same(same(x, c7, 1, 1), c7, 7, 1), c7, 1, 7), c7, 7, 1), 192, 1, 7);
    Value bp = same(avg_pool_same(x), 192, 1, 1);
    return concat({b1, b7, bd, bp});
  }
  Value block_d(Value x) {
    Value b3 = conv(same(x, 192, 1, 1), 320, 3, 3, {2, 2});
    Value b7 = conv(same(same(same(x, 192, 1, 1), 192, 1, 7), 192, 7, 1), 192, 3, 3, {2, 2});
    return concat({b3, b7, max_pool(x)});
  }
  Value block_e(Value x) {
    Value b1 = same(x, 320, 1, 1);
    Value b3 = same(x, 384, 1, 1);
    Value b3s = concat({same(b3, 384, 1, 3), same(b3, 384, 3, 1)});
    Value bd = same(same(x, 448, 1, 1), 384, 3, 3);
    Value bds = concat({same(bd, 384, 1, 3), same(bd, 384, 3, 1)});
    Value bp = same(avg_pool_same(x), 192, 1, 1);
    return concat({b1, b3s, bds, bp});
  }

  Graph<> g_;
  std::uint64_t seed_ = 0;
};

void BM_InceptionV3_299(benchmark::State& state) {
  InceptionV3 net(1);
  ReferenceExecutor<> ex;
  Tensor image = Tensor::random({1, 3, 299, 299}, 7);
  double flops = 0;
  for (NodeId id : net.graph().node_ids()) {
    auto const& n = net.graph()[id];
    std::vector<TensorDesc> in;
    for (Value v : n.inputs) in.push_back(net.graph().desc(v));
    if (auto const* c = n.template get_if<Conv2D>()) flops += c->flops(in, n.outputs);
  }
  for (auto _ : state) {
    auto out = ex.run(net.graph(), {image});
    benchmark::DoNotOptimize(out.front().ptr());
  }
  state.counters["conv GFLOP"] = flops * 1e-9;
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_InceptionV3_299)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

}  // namespace
}  // namespace autograph
