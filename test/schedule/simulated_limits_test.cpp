// SimulatedRuntime at the edges: runs so long that a short kernel's work is below the
// spacing of doubles, costs that are not finite times, and graphs the device cannot hold.
#include <autograph/graph/builder.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <autograph/schedule/sequential.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace autograph {
namespace {

/// Convolutions take `conv_us`, every other kernel `other`.
struct ConvDominated {
  double conv_us = 1e12;
  KernelCost other{1.5 + 1e-5, 0.01, 1.5};  // 10 ps of work after its launch
  KernelCost estimate(AnyOp const& op, std::span<TensorDesc const>, std::span<TensorDesc const>) const {
    return op.is<Conv2D>() ? KernelCost{conv_us, 1.0, 1.5} : other;
  }
  std::string describe() const { return "conv-dominated costs"; }
};

/// x -> conv -> (relu, sigmoid side by side) -> add.
Graph<> conv_then_small_kernels() {
  GraphBuilder b;
  Value c = b.conv2d(b.input("x", {1, 8, 8, 8}), 8, {3, 3}, {}, "conv");
  return std::move(b).build({b.add(b.relu(c, "relu"), b.sigmoid(c, "sigmoid"), "add")});
}

template <class Policy>
void expect_long_run_finishes() {
  // At 1e12 us doubles are 1.2e-4 us apart: t + 1e-5 == t, so the small kernels' work does not
  // move the clock. The simulation still finishes each of them once its latency is over.
  auto g = conv_then_small_kernels();
  SimulatedRuntime<devices::H100, Policy, ConvDominated> rt{ConvDominated{}};
  double ms = rt.measure(g);
  double launch = devices::H100::spec.graph_launch_us;
  EXPECT_NEAR(ms * 1000, launch + 1e12, 1e12 * 1e-9);
  auto t = rt.simulate(g, rt.schedule(g).schedule);
  ASSERT_EQ(t.kernels.size(), 4u);
  for (auto const& k : t.kernels) EXPECT_TRUE(std::isfinite(k.end_us)) << g.label(k.node);
}

TEST(SimulatedLimits, ARunOfAMillionSecondsFinishesWithTheShortKernelsAfterIt) {
  expect_long_run_finishes<schedule::Sequential>();
  expect_long_run_finishes<schedule::Nimble>();
}

TEST(SimulatedLimits, ACostThatIsNotAFiniteTimeIsAnErrorNamingTheNode) {
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), -1.0}) {
    auto g = conv_then_small_kernels();
    SimulatedRuntime<devices::H100, schedule::Nimble, ConvDominated> rt{ConvDominated{.conv_us = bad}};
    try {
      rt.measure(g);
      ADD_FAILURE() << "a cost of " << bad << " us was accepted";
    } catch (Error const& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find("conv-dominated costs gives Conv2D 'conv' a cost of"), std::string::npos) << msg;
      EXPECT_NE(msg.find("not a finite time"), std::string::npos) << msg;
    }
  }
}

TEST(SimulatedLimits, AGraphTheDeviceCannotHoldHasNoLatency) {
  // The input alone is 120 GB: more than an H100's 80 GiB and less than an H200's 141 GiB;
  // the convolution's output is 2.56 TB, more than either.
  GraphBuilder b;
  Value x = b.input("x", {1, 3, 100000, 100000});
  auto g = std::move(b).build({b.conv2d(x, 64, {3, 3}, {}, "conv1")});
  for (std::string device : {"H100 SXM", "H200 SXM"}) {
    try {
      if (device == "H100 SXM") SimulatedRuntime<devices::H100>{}.measure(g);
      else SimulatedRuntime<devices::H200>{}.measure(g);
      ADD_FAILURE() << "the graph was measured on the " << device;
    } catch (Error const& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find("does not fit in the " + device), std::string::npos) << msg;
      EXPECT_NE(msg.find("Conv2D 'conv1' output [1,64,100000,100000] f32, 2560000000000 bytes"), std::string::npos) << msg;
    }
  }
  // Without the convolution the input fits the H200 and not the H100.
  GraphBuilder small;
  Value y = small.input("x", {1, 3, 100000, 100000});
  auto relu = std::move(small).build({small.relu(y, "relu")});  // in + out: 240 GB, run one at a time
  EXPECT_THROW(SimulatedRuntime<devices::H200>{}.measure(relu), Error);
  GraphBuilder alone;
  auto input_only = std::move(alone).build({alone.reshape(alone.input("x", {1, 3, 100000, 100000}), {3, 100000, 100000})});
  EXPECT_NO_THROW(SimulatedRuntime<devices::H200>{}.measure(input_only));
  EXPECT_THROW(SimulatedRuntime<devices::H100>{}.measure(input_only), Error);
}

}  // namespace
}  // namespace autograph
