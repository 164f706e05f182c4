// The CUDA runtime as a whole: multi-stream schedules captured into CUDA graphs give the
// reference's results, memory is reused, measurements are sane, bad schedules are refused.
// The GPU tests skip without a GPU; the concept checks and the no-GPU behaviour run anywhere.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "autograph/graph/builder.hpp"
#include "autograph/runtime/simulated_runtime.hpp"
#include "autograph/schedule/ios.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/waits.hpp"
#include "cuda_testing.hpp"

namespace autograph::cuda {
namespace runtime_test {

using testing::expect_matches_reference;
using testing::gpu;
using testing::random_inputs;

/// An operator with no CUDA kernel: the concept says so, and lowering a graph with it would
/// stop at compile time with the static_assert in lower().
struct NoKernelOp {
  static constexpr std::string_view name = "NoKernelOp";
  static constexpr Arity arity{1, 1};
  auto params() const { return std::tuple{}; }
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const { return {in[0]}; }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 1; }
  bool operator==(NoKernelOp const&) const = default;
};

static_assert(Runtime<CudaGraphRuntime>);
static_assert(CudaExecutable<Conv2D> && CudaExecutable<MatMul> && CudaExecutable<Resize> && CudaExecutable<Input>);
static_assert(!CudaExecutable<NoKernelOp>);

TEST(CudaRuntime, WithoutAGpuSaysWhy) {
  auto why = gpu_unavailable();
  if (why) {
    EXPECT_TRUE(why->starts_with("no usable GPU")) << *why;
    try {
      CudaGraphRuntime rt;
      FAIL() << "a runtime was made without a GPU";
    } catch (CudaError const& e) {
      EXPECT_EQ(std::string(e.what()), *why);
    }
  } else {
    EXPECT_NO_THROW(CudaGraphRuntime{});
  }
}

/// An Inception-style block: four branches of different depth, concatenated, twice.
Graph<> inception_block(std::uint64_t seed = 3) {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 16, 17, 17});
  for (int block = 0; block < 2; ++block) {
    auto s = b.scope("block" + std::to_string(block));
    Value b1 = b.relu(b.conv2d(x, 8, {1, 1}));
    Value b2 = b.relu(b.conv2d(b.relu(b.conv2d(x, 6, {1, 1})), 8, {3, 3}));
    Value b3 = b.relu(b.conv2d(b.relu(b.conv2d(b.relu(b.conv2d(x, 4, {1, 1})), 6, {1, 7})), 8, {7, 1}));
    Value b4 = b.relu(b.conv2d(b.avg_pool(x, {3, 3}, {.stride = {1, 1}, .pad = {1, 1, 1, 1}}), 8, {1, 1}));
    x = b.concat({b1, b2, b3, b4}, 1);
  }
  Graph<> g = std::move(b).build({b.global_avg_pool(x)});
  fill_random_weights(g, seed);
  return g;
}

TEST(CudaRuntime, MultiStreamSchedulesMatchTheReference) {
  AUTOGRAPH_REQUIRE_GPU();
  Graph<> g = inception_block();
  auto in = random_inputs(g);
  KernelDag dag(g);
  Schedule nimble = schedule::nimble(dag);
  EXPECT_GT(nimble.num_streams(), 1u);
  expect_matches_reference(g, nimble, in, 1e-4, {.allow_tf32 = false}, {.check_arena = true}, "nimble");
  expect_matches_reference(g, schedule::sequential(dag), in, 1e-4, {.allow_tf32 = false}, {.check_arena = true}, "sequential");
  expect_matches_reference(g, nimble, in, 1e-4, {.allow_tf32 = false}, {.capture = false, .sync_each_launch = true}, "nimble, no graph");
  expect_matches_reference(g, nimble, in, 5e-3, {.allow_tf32 = true}, {}, "nimble, TF32");
}

/// A random DAG of elementwise ops, concatenations and splits on one shape.
Graph<> random_dag(std::uint64_t seed, int nodes) {
  std::mt19937_64 rng(seed);
  GraphBuilder<> b;
  std::vector<Value> values{b.input("x", {1, 8, 8, 8}), b.input("y", {1, 8, 8, 8})};
  auto pick = [&] { return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)]; };
  for (int i = 0; i < nodes; ++i) {
    switch (std::uniform_int_distribution<int>(0, 4)(rng)) {
      case 0: values.push_back(b.add(pick(), pick())); break;
      case 1: values.push_back(b.mul(pick(), b.tanh(pick()))); break;
      case 2: values.push_back(b.relu(pick())); break;
      case 3: {  // concatenated (in place) and split back (views)
        auto parts = b.split(b.concat({pick(), pick()}, 1), 1, {8, 8});
        values.push_back(b.sub(parts[0], parts[1]));
        break;
      }
      default: values.push_back(b.sigmoid(b.conv2d(pick(), 8, {3, 3}))); break;
    }
  }
  Graph<> g = std::move(b).build({values.back(), values[values.size() / 2]});
  g.remove_dead();
  fill_random_weights(g, seed);
  return g;
}

/// Each kernel, in topological order, appended to a random one of `streams` streams.
Schedule random_schedule(KernelDag const& dag, std::size_t streams, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<NodeId>> s(streams);
  for (NodeId id : dag.nodes()) s[std::uniform_int_distribution<std::size_t>(0, streams - 1)(rng)].push_back(id);
  return insert_waits(dag, s);
}

TEST(CudaRuntime, RandomGraphsUnderRandomStreamsMatchTheReference) {
  AUTOGRAPH_REQUIRE_GPU();
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    Graph<> g = random_dag(seed, 30);
    auto in = random_inputs(g, seed);
    KernelDag dag(g);
    std::string what = "seed " + std::to_string(seed);
    expect_matches_reference(g, schedule::nimble(dag), in, 1e-4, {.allow_tf32 = false}, {.check_arena = true}, what + " nimble");
    expect_matches_reference(g, random_schedule(dag, 4, seed), in, 1e-4, {.allow_tf32 = false}, {.check_arena = true}, what + " 4 random streams");
  }
}

TEST(CudaRuntime, ReusesMemoryAlongAChain) {
  AUTOGRAPH_REQUIRE_GPU();
  GraphBuilder<> b;
  Value x = b.input("x", {1, 64, 64, 64});
  for (int i = 0; i < 20; ++i) x = i % 2 ? b.relu(x) : b.tanh(x);
  Graph<> g = std::move(b).build({x});
  auto exe = gpu().compile(g, schedule::sequential(KernelDag(g)), {.check_arena = true});
  // Twenty 1 MiB intermediates; a chain needs two at a time (the output is kept apart).
  EXPECT_LE(exe.arena().size, 3 * (std::size_t{1} << 20));
  EXPECT_GE(exe.arena().unshared, 20 * (std::size_t{1} << 20));
  auto in = random_inputs(g);
  expect_matches_reference(g, in, 1e-5);
}

TEST(CudaRuntime, MeasuresMeanLatencies) {
  AUTOGRAPH_REQUIRE_GPU();
  Graph<> g = inception_block();
  KernelDag dag(g);
  double nimble = gpu().measure(g);
  double sequential = gpu().measure(g, schedule::sequential(dag));
  std::printf("[ latency  ] inception block: nimble %.4f ms, sequential %.4f ms (%s)\n", nimble, sequential, gpu().kind().c_str());
  EXPECT_GT(nimble, 0.0);
  EXPECT_GT(sequential, 0.0);
  EXPECT_LT(nimble, 100.0);
  auto prepared = gpu().prepare(g);
  double launch = prepared.measure(Schedule{});  // the fixed cost of one graph launch
  EXPECT_GT(launch, 0.0);
  EXPECT_LT(launch, sequential);
  // Half the kernels (a partial schedule, as IOS times a stage): the rest count as done.
  std::vector<std::vector<NodeId>> half(1);
  for (std::size_t k = 0; k < dag.size() / 2; ++k) half[0].push_back(dag.node(k));
  double part = prepared.measure(insert_waits(dag, half, false));
  EXPECT_GT(part, 0.0);
  EXPECT_NE(gpu().kind().find(gpu().device().info().name), std::string::npos);
}

TEST(CudaRuntime, TracesKernelsInDependencyOrder) {
  AUTOGRAPH_REQUIRE_GPU();
  Graph<> g = inception_block();
  KernelDag dag(g);
  Schedule s = schedule::nimble(dag);
  auto exe = gpu().compile(g, s);
  Timeline t = exe.trace();
  ASSERT_EQ(t.kernels.size(), s.num_kernels());
  std::map<NodeId, KernelSpan> span;
  for (auto const& k : t.kernels) {
    EXPECT_LE(0.0, k.start_us);
    EXPECT_LE(k.start_us, k.end_us);
    EXPECT_LE(k.end_us, t.total_us);
    span[k.node] = k;
  }
  // Every kernel starts after every kernel it reads has ended, on whichever stream.
  for (std::size_t k = 0; k < dag.size(); ++k)
    for (std::uint32_t p : dag.preds(k)) EXPECT_LE(span[dag.node(p)].end_us, span[dag.node(k)].start_us) << g.label(dag.node(k));
  std::set<std::uint32_t> streams;
  for (auto const& k : t.kernels) streams.insert(k.stream);
  EXPECT_EQ(streams.size(), s.num_streams());
}

TEST(CudaRuntime, RefusesSchedulesThatDoNotRunTheGraph) {
  AUTOGRAPH_REQUIRE_GPU();
  Graph<> g = inception_block();
  KernelDag dag(g);
  Schedule s = schedule::nimble(dag);
  {  // a dropped wait: a kernel may start before one it reads
    Schedule bad = s;
    bool dropped = false;
    for (auto& stream : bad.streams)
      for (auto& l : stream)
        if (!dropped && !l.waits.empty()) {
          l.waits.clear();
          dropped = true;
        }
    ASSERT_TRUE(dropped);
    EXPECT_THROW((void)gpu().compile(g, bad), ScheduleError);
  }
  {  // a missing kernel
    Schedule bad = s;
    for (auto& stream : bad.streams)
      if (!stream.empty()) {
        NodeId last = stream.back().node;
        stream.pop_back();
        for (auto& other : bad.streams)
          for (auto& l : other) std::erase(l.waits, last);
        break;
      }
    EXPECT_THROW((void)gpu().compile(g, bad), ScheduleError);
  }
  {  // a node that runs no kernel (the Input)
    Schedule bad = s;
    bad.streams[0].insert(bad.streams[0].begin(), Launch{g.inputs()[0], {}});
    EXPECT_THROW((void)gpu().compile(g, bad), ScheduleError);
  }
}

TEST(CudaRuntime, IosSchedulesOnTheGpu) {
  AUTOGRAPH_REQUIRE_GPU();
  Graph<> g = inception_block();
  auto in = random_inputs(g);
  auto want = ReferenceExecutor<>().run(g, std::span<Tensor const>(in));
  auto scheduled = schedule::Ios{}(g, gpu());  // stage latencies measured on the GPU
  auto exe = gpu().compile(scheduled.graph, scheduled.schedule, {}, {.allow_tf32 = false});
  auto got = exe.run(std::span<Tensor const>(in));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(testing::close(got[0], want[0], 1e-4, "IOS schedule"));
  std::printf("[ latency  ] inception block: IOS %.4f ms on %zu streams\n", gpu().measure(scheduled.graph, scheduled.schedule),
              scheduled.schedule.num_streams());
}

TEST(CudaRuntime, RunsWithInputsByName) {
  AUTOGRAPH_REQUIRE_GPU();
  GraphBuilder<> b;
  Value x = b.input("x", {2, 3}), y = b.input("y", {3});
  Graph<> g = std::move(b).build({b.add(x, y), x});  // an input is also an output
  auto exe = gpu().compile(g, schedule::sequential(KernelDag(g)));
  auto out = exe.run(std::map<std::string, Tensor>{{"y", Tensor(Shape{3}, {1, 2, 3})}, {"x", Tensor(Shape{2, 3}, {0, 0, 0, 1, 1, 1})}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::vector<float>(out[0].data().begin(), out[0].data().end()), (std::vector<float>{1, 2, 3, 2, 3, 4}));
  EXPECT_EQ(std::vector<float>(out[1].data().begin(), out[1].data().end()), (std::vector<float>{0, 0, 0, 1, 1, 1}));
  EXPECT_THROW(exe.run(std::map<std::string, Tensor>{{"x", Tensor(Shape{2, 3})}}), ExecutionError);
  EXPECT_THROW(exe.run(std::vector<Tensor>{Tensor(Shape{3, 2}), Tensor(Shape{3})}), ExecutionError);
}

}  // namespace runtime_test
}  // namespace autograph::cuda
