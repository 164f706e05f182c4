// A memory plan broken on purpose (a buffer reused one wait too early) must show up as wrong
// outputs on the CPU runtime, and as a race under ThreadSanitizer (scripts/test.sh checks that
// TSan reports this test's run). A user op that reads its input slowly widens the window.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "autograph/cpu/runtime.hpp"
#include "matches_reference.hpp"

namespace autograph::cpu {
namespace {

using test::matches;

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
// Only the operators the test uses: lowering instantiates a kernel path for every operator of the set.
using Ops = OpSet<Input, Weight, Relu, Reciprocal, Add, SlowNegate>;
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
  // The graph by hand and its expected outputs by formula: a builder and a reference executor
  // of this operator set would double the file's compile time.
  Graph<slow::Ops> g;
  Value x{g.add(Input{{Shape{1, 64}}, "x"}, {}, "x"), 0};
  Value a{g.add(Relu{}, {x}, "a"), 0};
  Value r{g.add(slow::SlowNegate{60}, {a}, "r"), 0};
  Value d{g.add(slow::SlowNegate{20}, {x}, "d"), 0};
  Value w{g.add(Reciprocal{}, {x}, "w"), 0};
  Value rw{g.add(Add{}, {r, w}, "r+w"), 0};
  Value out{g.add(Add{}, {rw, d}, "out"), 0};
  g.set_outputs({out});
  std::vector<Tensor> in{Tensor::random({1, 64}, 9)};
  std::vector<float> expected;
  for (float v : in[0].data()) expected.push_back(-std::max(v, 0.f) + 1 / v - v);
  std::vector<Tensor> want{Tensor({1, 64}, std::move(expected))};

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
