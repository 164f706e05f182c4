// launch::MetaFlowEngine and launch::IosEngine (cost/launch.hpp): the kernels MetaFlow's, TASO's
// and IOS's engines launch for one operator, and how the simulated runtime issues and prices them.
#include <autograph/graph/builder.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <gtest/gtest.h>

namespace autograph {
namespace {

/// Fixed costs by op type: a convolution 10 us, an add 2 us, a copy (Identity) 1 us, a concat
/// 3 us, anything else 1 us; 0.5 us of each is latency.
struct FixedCosts {
  double copy_us = 1;
  KernelCost estimate(AnyOp const& op, std::span<TensorDesc const>, std::span<TensorDesc const>) const {
    double us = op.is<Conv2D>() ? 10 : op.is<Add>() ? 2 : op.is<Identity>() ? copy_us : op.is<Concat>() ? 3 : 1;
    return {us, 0.2, std::min(us, 0.5)};
  }
  std::string describe() const { return "fixed costs"; }
};

using Engine = SimulatedRuntime<devices::V100, schedule::Nimble, FixedCosts, launch::MetaFlowEngine>;
using Hosted = SimulatedRuntime<devices::V100, schedule::Nimble, FixedCosts, launch::HostLaunched>;
constexpr double issue = devices::V100::spec.host_launch_us;

static_assert(LaunchModel<launch::MetaFlowEngine> && LaunchModel<launch::HostLaunched> && LaunchModel<launch::CudaGraph>);
static_assert(LaunchModel<launch::IosEngine> && launch::IosEngine::host_issued);

std::vector<launch::EngineKernel> engine_kernels(Graph<> const& g, Value v) {
  auto in = input_descs(g, v.node);
  return launch::MetaFlowEngine::kernels(g[v.node].op, in, g[v.node].outputs);
}

TEST(MetaFlowEngine, AConvolutionWithoutAnActivationAddsItsBiasInASecondKernel) {
  GraphBuilder b;
  auto x = b.input("x", {1, 16, 8, 8});
  auto plain = b.conv2d(x, 32, {3, 3});
  auto fused = b.conv2d(x, 32, {3, 3}, {.act = Activation::relu});
  auto const& g = b.graph();
  auto two = engine_kernels(g, plain);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_TRUE(two[0].op.is<Conv2D>());
  EXPECT_TRUE(two[1].op.is<Add>());
  EXPECT_EQ(two[1].in[0].shape, (Shape{1, 32, 8, 8}));
  EXPECT_EQ(two[1].in[1].shape, (Shape{1, 32, 1, 1}));  // one bias value per channel
  EXPECT_EQ(two[1].out[0].shape, (Shape{1, 32, 8, 8}));
  // cudnnConvolutionBiasActivationForward: one call, the operator's own kernel.
  EXPECT_TRUE(engine_kernels(g, fused).empty());
  EXPECT_TRUE(launch::HostLaunched::kernels(g[plain.node].op, input_descs(g, plain.node), g[plain.node].outputs).empty());
}

TEST(MetaFlowEngine, AConcatenationCopiesEachInputOnItsOwn) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto y = b.input("y", {1, 6, 8, 8});
  auto c = b.concat({x, y, x});
  auto r = b.relu(x);
  auto const& g = b.graph();
  auto copies = engine_kernels(g, c);
  ASSERT_EQ(copies.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(copies[i].op.is<Identity>());
    EXPECT_EQ(copies[i].in[0].shape, copies[i].out[0].shape);
  }
  EXPECT_EQ(copies[1].in[0].shape, (Shape{1, 6, 8, 8}));
  EXPECT_TRUE(engine_kernels(g, r).empty());
}

TEST(MetaFlowEngine, AnOperatorsKernelsRunOneAfterAnotherEachIssuedByItsOwnCall) {
  GraphBuilder b;
  auto x = b.input("x", {1, 16, 8, 8});
  auto conv = b.conv2d(x, 16, {3, 3});
  auto r = b.relu(conv);
  auto g = std::move(b).build({r});
  Schedule one{{{{conv.node, {}}, {r.node, {}}}}};
  // The engine: the convolution (issued at 3.8 us) runs 10 us and its bias 2 more, ending at
  // 15.8; the relu, issued by the third call (11.4 us), follows it: 16.8 us.
  EXPECT_DOUBLE_EQ(Engine{}.simulate(g, one).total_us, issue + 10 + 2 + 1);
  // One kernel per operator: the convolution ends at 13.8, the relu after it.
  EXPECT_DOUBLE_EQ(Hosted{}.simulate(g, one).total_us, issue + 10 + 1);
}

TEST(MetaFlowEngine, ShortCopiesRunAtTheHostsPaceOneCallEach) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto c = b.concat({x, x, x, x});
  auto g = std::move(b).build({c});
  Schedule one{{{{c.node, {}}}}};
  FixedCosts instant;
  instant.copy_us = 0;
  // Four copies of no time: the host's four calls bound the run. One concat kernel: one call and its 3 us.
  EXPECT_DOUBLE_EQ(Engine(instant).simulate(g, one).total_us, 4 * issue);
  EXPECT_DOUBLE_EQ(Hosted(instant).simulate(g, one).total_us, issue + 3);
}

TEST(IosEngine, LaunchesABiasKernelAfterAConvolutionWithoutActivationAndACopyPerConcatenatedInput) {
  GraphBuilder b;
  auto x = b.input("x", {1, 16, 8, 8});
  auto plain = b.conv2d(x, 32, {3, 3});
  auto fused = b.conv2d(x, 32, {3, 3}, {.act = Activation::relu});
  auto c = b.concat({plain, fused});
  auto g = std::move(b).build({c});
  auto ios = [&](Value v) { return launch::IosEngine::kernels(g[v.node].op, input_descs(g, v.node), g[v.node].outputs); };
  // ConvOP::forward: cudnnConvolutionForward then cudnnAddTensor without an activation,
  // cudnnConvolutionBiasActivationForward (one kernel) with one.
  auto two = ios(plain);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_TRUE(two[0].op.is<Conv2D>() && two[1].op.is<Add>());
  EXPECT_TRUE(ios(fused).empty());
  // Input::forward: one assign_with_stride_src per concatenated term.
  auto copies = ios(c);
  ASSERT_EQ(copies.size(), 2u);
  for (auto const& k : copies) EXPECT_TRUE(k.op.is<Identity>());
  // Run on one stream, the engine issues five calls: conv, bias, conv, copy, copy.
  using Ios = SimulatedRuntime<devices::V100, schedule::Nimble, FixedCosts, launch::IosEngine>;
  FixedCosts instant;
  instant.copy_us = 0;
  Schedule one{{{{plain.node, {}}, {fused.node, {}}, {c.node, {}}}}};
  // The first convolution (issued at 3.8) and its bias end at 15.8; the second, issued third,
  // follows at 25.8; the two copies of no time are issued by the fourth and fifth calls.
  EXPECT_DOUBLE_EQ(Ios(instant).simulate(g, one).total_us, issue + 10 + 2 + 10);
  EXPECT_DOUBLE_EQ(Hosted(instant).simulate(g, one).total_us, issue + 10 + 10 + 3);
}

}  // namespace
}  // namespace autograph
