// ReferenceExecutor and host memory: a graph whose tensors cannot fit is refused before it
// runs, and an allocation that fails during a run is an error naming the node.
#include <gtest/gtest.h>

#include <new>
#include <string>

#include "autograph/runtime/reference_executor.hpp"
#include "kernel_testing.hpp"

namespace autograph {
namespace executor_memory_test {

/// Stands for a kernel whose allocation fails: its evaluation throws std::bad_alloc.
struct Exhausting {
  static constexpr std::string_view name = "Exhausting";
  static constexpr Arity arity{1, 1};
  auto params() const { return std::tuple{}; }
  bool operator==(Exhausting const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const { return {in[0]}; }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 0; }
  std::vector<Tensor> evaluate(std::span<Tensor const>, std::span<TensorDesc const>) const { throw std::bad_alloc(); }
};

// Only the ops these tests use (see executor_test.cpp).
using TestOps = OpSet<Input, Pad, Relu, Reshape, Exhausting>;
using Executor = ReferenceExecutor<TestOps>;

TEST(ExecutorMemory, HostMemoryIsKnown) { EXPECT_GT(host_available_memory_bytes(), 0); }

TEST(ExecutorMemory, ATensorNoMachineHoldsIsRefusedBeforeRunning) {
  // An 8x8 image padded to 1x3x400000x400000: 1.92 TB of float32.
  Graph<TestOps> g;
  NodeId x = g.add(Input{{Shape{1, 3, 8, 8}}, "x"}, {});
  NodeId pad = g.add(Pad{.pads = {0, 0, 200000, 200000, 0, 0, 199992, 199992}}, {Value{x}}, "pad");
  NodeId relu = g.add(Relu{}, {Value{pad}}, "relu");
  g.set_outputs({Value{relu}});
  std::string msg = testing::execution_error([&] { Executor{}.run(g, {Tensor(Shape{1, 3, 8, 8})}); });
  EXPECT_NE(msg.find("does not fit in this machine's memory"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Pad 'pad' output [1,3,400000,400000] f32, 1920000000000 bytes"), std::string::npos) << msg;
}

TEST(ExecutorMemory, ACallerCanCheckBeforeMakingTheInputs) {
  // A 1.92 TB input passed straight through a view: a run allocates nothing, but whoever
  // has yet to make the input cannot.
  Graph<TestOps> g;
  NodeId x = g.add(Input{{Shape{1, 3, 400000, 400000}}, "x"}, {}, "x");
  NodeId flat = g.add(Reshape{{-1}}, {Value{x}});
  g.set_outputs({Value{flat}});
  EXPECT_EQ(testing::execution_error([&] { Executor{}.check_memory(g); }), "");
  std::string msg = testing::execution_error([&] { Executor{}.check_memory(g, /*inputs_allocated=*/false); });
  EXPECT_NE(msg.find("Input 'x' output [1,3,400000,400000] f32, 1920000000000 bytes"), std::string::npos) << msg;
}

TEST(ExecutorMemory, AFailedAllocationNamesTheNodeAndItsOutput) {
  Graph<TestOps> g;
  NodeId x = g.add(Input{{Shape{2, 3}}, "x"}, {});
  NodeId e = g.add(Exhausting{}, {Value{x}}, "scratch_hungry");
  g.set_outputs({Value{e}});
  std::string msg = testing::execution_error([&] { Executor{}.run(g, {Tensor(Shape{2, 3})}); });
  EXPECT_NE(msg.find("Exhausting 'scratch_hungry': out of memory computing its output [2,3] (24 bytes"), std::string::npos) << msg;
}

}  // namespace executor_memory_test
}  // namespace autograph
