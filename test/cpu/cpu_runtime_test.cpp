// The CPU runtime against the reference executor: random DAGs under random multi-stream
// schedules and every zoo model under every schedule policy, with real concurrency (at least
// two cores' worth of threads); the thread plan; measuring; and a deliberately broken memory
// plan that the runtime must expose as wrong outputs.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <random>
#include <thread>

#include "autograph/cpu/runtime.hpp"
#include "autograph/graph/builder.hpp"
#include "autograph/models/zoo.hpp"
#include "autograph/runtime/reference_executor.hpp"
#include "autograph/runtime/simulated_runtime.hpp"
#include "autograph/schedule/greedy.hpp"
#include "autograph/schedule/ios.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/sequential.hpp"
#include "autograph/schedule/waits.hpp"
#include "schedule/random_dag.hpp"

namespace autograph::cpu {
namespace {

std::vector<Tensor> random_inputs(Graph<> const& g, std::uint64_t seed = 1) {
  std::vector<Tensor> in;
  for (NodeId id : g.inputs()) in.push_back(Tensor::random(g[id].outputs[0].shape, seed + id));
  return in;
}

/// ||got - want|| / ||want|| (the norms over all elements), or the absolute norm when want is 0.
double normwise_error(Tensor const& got, Tensor const& want) {
  auto a = got.data(), b = want.data();
  if (a.size() != b.size()) return INFINITY;
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    norm += double(b[i]) * b[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

::testing::AssertionResult matches(std::vector<Tensor> const& got, std::vector<Tensor> const& want, double tolerance) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << got.size() << " outputs, expected " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i].shape() != want[i].shape())
      return ::testing::AssertionFailure() << "output " << i << " has shape " << got[i].shape().to_string() << ", expected "
                                           << want[i].shape().to_string();
    double e = normwise_error(got[i], want[i]);
    if (!(e <= tolerance)) return ::testing::AssertionFailure() << "output " << i << ": normwise relative error " << e << " > " << tolerance;
  }
  return ::testing::AssertionSuccess();
}

Schedule random_streams(KernelDag const& dag, std::size_t streams, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<NodeId>> s(streams);
  for (NodeId id : dag.nodes()) s[std::uniform_int_distribution<std::size_t>(0, streams - 1)(rng)].push_back(id);
  return insert_waits(dag, s);
}

TEST(CpuRuntime, RandomGraphsUnderRandomStreamsMatchTheReference) {
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    Graph<> g = test::random_dag(seed, {.kernels = 24, .channels = 8, .side = 10});
    fill_random_weights(g, seed);
    auto in = random_inputs(g, seed);
    auto want = ReferenceExecutor<>().run(g, in);
    KernelDag dag(g);
    for (std::size_t streams : {1, 2, 4}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(streams) + " random streams");
      auto exe = CpuExecutable(lower(g), random_streams(dag, streams, seed), {.check_arena = true, .cores = 2});
      for (int repeat = 0; repeat < 3; ++repeat) EXPECT_TRUE(matches(exe.run(in), want, 1e-5));
    }
  }
}

/// Multi-branch models on several streams sharing two cores: the pass ThreadSanitizer runs.
TEST(CpuRuntime, MultiBranchModelsOnSeveralStreamsMatchTheReference) {
  for (auto [name, resolution] : {std::pair{"squeezenet1_1", 64}, {"nasnet_a_mobile", 64}, {"randwire_ws", 64}}) {
    SCOPED_TRACE(name);
    Graph<> g = models::build(name, {.batch = 1, .resolution = resolution, .weight_seed = 4});
    auto in = random_inputs(g);
    auto want = ReferenceExecutor<>().run(g, in);
    Schedule s = schedule::nimble(KernelDag(g));
    ASSERT_GE(s.num_streams(), 2u);
    auto exe = CpuExecutable(lower(g), s, {.check_arena = true, .cores = 2});
    for (int repeat = 0; repeat < 2; ++repeat) EXPECT_TRUE(matches(exe.run(in), want, 1e-4));
  }
}

/// Every zoo model, small images, under each schedule policy.
TEST(SlowCpuRuntime, EveryZooModelUnderEveryScheduleMatchesTheReference) {
  CpuRuntime cpu({.cores = 2});
  for (auto const& m : models::zoo()) {
    SCOPED_TRACE(std::string(m.name));
    Graph<> g = m.build({.batch = 1, .resolution = 96, .weight_seed = 3});
    auto in = random_inputs(g);
    auto want = ReferenceExecutor<>().run(g, in);
    SimulatedRuntime<> sim;  // what greedy and IOS decide with; the schedules then run here
    auto check = [&](auto const& policy) {
      SCOPED_TRACE(std::string(policy.name));
      ScheduledGraph<BuiltinOps> sg = policy(g, sim);  // IOS may merge convolutions: the graph changes, its outputs do not
      auto exe = cpu.compile(sg.graph, sg.schedule, {.check_arena = true});
      EXPECT_TRUE(matches(exe.run(in), want, 1e-4));
    };
    check(schedule::Sequential{});
    check(schedule::Nimble{});
    check(schedule::Greedy{});
    check(schedule::Ios{});
  }
}

TEST(CpuRuntime, ThreadsFollowTheSchedule) {
  // Two independent branches joined at the end: on two streams the branches share the
  // cores; the join, alone, takes them all.
  GraphBuilder<> b;
  Value x = b.input("x", {1, 8, 16, 16});
  Value l = b.relu(b.tanh(x)), r = b.sigmoid(b.relu(x));
  Graph<> g = std::move(b).build({b.add(l, r)});
  KernelDag dag(g);
  auto exe = CpuExecutable(lower(g), schedule::nimble(dag), {.cores = 4});
  ASSERT_EQ(exe.streams(), 2u);
  EXPECT_EQ(exe.threads(l.node), 2);
  EXPECT_EQ(exe.threads(r.node), 2);
  EXPECT_EQ(exe.threads(g.outputs()[0].node), 4);
  auto seq = CpuExecutable(lower(g), schedule::sequential(dag), {.cores = 4});
  EXPECT_EQ(seq.threads(l.node), 4);
}

TEST(CpuRuntime, MeasuresMedianLatencies) {
  Graph<> g = test::random_dag(5, {.kernels = 12});
  CpuRuntime cpu;
  auto prepared = cpu.prepare(g);  // shape-only weights get random data
  auto samples = prepared.samples(schedule::nimble(KernelDag(g)));
  EXPECT_GE(samples.size(), 50u);
  for (double s : samples) EXPECT_GT(s, 0.0);
  EXPECT_GT(cpu.measure(g), 0.0);
  EXPECT_NE(cpu.kind().find("measured (CPU, "), std::string::npos) << cpu.kind();
  EXPECT_THROW(CpuRuntime({.runs = 10}), Error);
}

TEST(CpuRuntime, RejectsBadInputsAndSchedules) {
  Graph<> g = test::random_dag(2, {.kernels = 6});
  fill_random_weights(g, 2);
  KernelDag dag(g);
  auto exe = CpuExecutable(lower(g), schedule::sequential(dag));
  std::vector<Tensor> wrong{Tensor::random({1, 3, 4, 4}, 1)};
  try {
    exe.run(wrong);
    FAIL() << "no error for an input of the wrong shape";
  } catch (ExecutionError const& e) {
    EXPECT_NE(std::string(e.what()).find("input 'x' has shape"), std::string::npos) << e.what();
  }
  // The executable stays usable.
  auto in = random_inputs(g);
  EXPECT_TRUE(matches(exe.run(in), ReferenceExecutor<>().run(g, in), 1e-5));
  // A schedule that leaves out a kernel, or drops a wait, is refused before anything runs.
  Schedule s = schedule::sequential(dag);
  s.streams[0].pop_back();
  EXPECT_THROW(CpuExecutable(lower(g), s), ScheduleError);
  Graph<> unweighted = test::random_dag(2, {.kernels = 6});
  EXPECT_THROW(lower(unweighted), ExecutionError);  // shape-only weights need data for results
}

namespace slow {
/// y = -x, read only after a pause: a kernel still reading its input long after a kernel on
/// another stream could have overwritten it.
struct SlowNegate {
  static constexpr std::string_view name = "SlowNegate";
  static constexpr Arity arity{1, 1};
  int pause_ms = 60;
  auto params() const { return std::tuple{pause_ms}; }
  bool operator==(SlowNegate const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const { return {in[0]}; }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const> out) const { return static_cast<double>(out[0].numel()); }
  std::vector<Tensor> evaluate(std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    std::vector<float> y(in[0].data().begin(), in[0].data().end());
    for (float& v : y) v = -v;
    return {Tensor(out[0].shape, std::move(y))};
  }
};
using Ops = extend_t<BuiltinOps, SlowNegate>;
}  // namespace slow

}  // namespace
}  // namespace autograph::cpu

template <>
struct autograph::cpu::Kernel<autograph::cpu::slow::SlowNegate> {
  static void prepare(slow::SlowNegate const& op, Preparation& p) {
    std::int64_t n = p.outputs()[0].numel();
    p.run("slow negate", [n, ms = op.pause_ms](Io const& io) -> Runner {
      return [x = io.in[0], y = io.out[0], n, ms] {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        for (std::int64_t i = 0; i < n; ++i) y[i] = -x[i];
      };
    });
  }
};

namespace autograph::cpu {
namespace {

TEST(CpuRuntime, AnArenaReusedOneWaitTooEarlyGivesWrongOutputs) {
  // Stream 0: a = relu(x); d = SlowNegate(x) for 20 ms; w = 1/x; out = r + w + d.
  // Stream 1: r = SlowNegate(a), reading a after 60 ms.
  // w does not wait for r, so w's buffer must not share a's bytes while r may still read them.
  // r, d and w are loops of ours (Reciprocal has no oneDNN kernel), so ThreadSanitizer sees the
  // race too (scripts/test.sh checks that it reports it); d holds w back until r has long
  // been running, so that no synchronisation of r's start comes after w's writes.
  GraphBuilder<slow::Ops> b;
  Value x = b.input("x", {1, 64});
  Value a = b.relu(x);
  Value r = b.add(slow::SlowNegate{60}, {a});
  Value d = b.add(slow::SlowNegate{20}, {x});
  Value w = b.add(Reciprocal{}, {x});
  Value out = b.add(b.add(r, w), d);
  Graph<slow::Ops> g = std::move(b).build({out});
  std::vector<Tensor> in{Tensor::random({1, 64}, 9)};
  auto want = ReferenceExecutor<slow::Ops>().run(g, in);

  NodeId sum = g[out.node].inputs[0].node;
  Schedule run{{{{a.node, {}}, {d.node, {}}, {w.node, {}}, {sum, {r.node}}, {out.node, {}}}, {{r.node, {a.node}}}}};
  Schedule broken = run;
  broken.streams[0][2].waits = {r.node};  // the planner is told w waits for r; the run does not wait

  auto correct = CpuExecutable(lower(g), run, {.check_arena = true, .cores = 2});
  EXPECT_TRUE(matches(correct.run(in), want, 1e-6));
  auto wrong = CpuExecutable(lower(g), run, {.check_arena = true, .cores = 2, .arena_schedule = &broken});
  EXPECT_NE(correct.arena_offset(w), correct.arena_offset(a));
  EXPECT_EQ(wrong.arena_offset(w), wrong.arena_offset(a));  // the broken plan did put w over a
  EXPECT_FALSE(matches(wrong.run(in), want, 1e-3)) << "a buffer reused while a slow reader still reads it went unnoticed";
}

}  // namespace
}  // namespace autograph::cpu
