// ReferenceExecutor on graphs with several outputs and consumers: multi-output ops, and
// values freed after their last reader.
#include <gtest/gtest.h>

#include <vector>

#include "autograph/runtime/reference_executor.hpp"
#include "kernel_testing.hpp"

namespace autograph {
namespace {

using testing::tensor_near;

// Only the ops these tests use (see executor_test.cpp).
using TestOps = OpSet<Input, Mul, Neg, Relu, Scale, Concat, Split, Reshape, Reduce>;
using TestGraph = Graph<TestOps>;
using Executor = ReferenceExecutor<TestOps>;

Tensor X() { return Tensor({1, 4}, {1, 2, 3, 4}); }

TEST(ReferenceExecutor, SplitOutputsFeedSeveralConsumers) {
  // x = (1,2,3,4) split (1, 3): a = (1), b = (2,3,4).
  // a*10 = 10; sum(b) = 9; concat(b, a) = (2,3,4,1).
  TestGraph g;
  NodeId x = g.add(Input{{Shape{1, 4}}, "x"}, {});
  NodeId s = g.add(Split{.axis = 1, .sizes = {1, 3}}, {Value{x}});
  NodeId a10 = g.add(Scale{.scale = 10}, {Value{s, 0}});
  NodeId sum = g.add(Reduce{.kind = ReduceKind::sum, .axes = {1}}, {Value{s, 1}});
  NodeId cat = g.add(Concat{.axis = 1}, {Value{s, 1}, Value{s, 0}});
  g.set_outputs({Value{a10}, Value{sum}, Value{cat}});
  auto out = Executor{}.run(g, {X()});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(tensor_near(out[0], {1, 1}, {10}));
  EXPECT_TRUE(tensor_near(out[1], {1, 1}, {9}));
  EXPECT_TRUE(tensor_near(out[2], {1, 4}, {2, 3, 4, 1}));
}

TEST(ReferenceExecutor, ReleasingIntermediatesKeepsOutputs) {
  // s = 2x is freed after its last reader runs; r, a view of s, is an output and must keep
  // the data alive. Outputs also include the input itself, a value listed twice, and an
  // intermediate that a later node still reads.
  TestGraph g;
  NodeId x = g.add(Input{{Shape{1, 4}}, "x"}, {});
  NodeId s = g.add(Scale{.scale = 2}, {Value{x}});
  NodeId r = g.add(Reshape{.shape = {2, 2}}, {Value{s}});
  NodeId n = g.add(Neg{}, {Value{r}});
  NodeId m = g.add(Mul{}, {Value{n}, Value{n}});  // n read twice by one node
  NodeId q = g.add(Relu{}, {Value{m}});
  g.set_outputs({Value{r}, Value{q}, Value{x}, Value{q}, Value{n}});
  Executor ex;
  for (int run = 0; run < 2; ++run) {
    auto out = ex.run(g, {X()});
    ASSERT_EQ(out.size(), 5u);
    EXPECT_TRUE(tensor_near(out[0], {2, 2}, {2, 4, 6, 8}));
    EXPECT_TRUE(tensor_near(out[1], {2, 2}, {4, 16, 36, 64}));
    EXPECT_TRUE(tensor_near(out[2], {1, 4}, {1, 2, 3, 4}));
    EXPECT_TRUE(tensor_near(out[3], {2, 2}, {4, 16, 36, 64}));
    EXPECT_TRUE(tensor_near(out[4], {2, 2}, {-2, -4, -6, -8}));
  }
}

}  // namespace
}  // namespace autograph
