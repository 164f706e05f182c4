// ReferenceExecutor end to end on a small CNN whose result is worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "autograph/runtime/reference_executor.hpp"
#include "kernel_testing.hpp"

namespace autograph {
namespace executor_network_test {

using testing::tensor_near;

// Only the ops this test uses (see executor_test.cpp).
using TestOps = OpSet<Input, Weight, Conv2D, Pool2D, MatMul, BatchNorm, Softmax, Reshape>;
using TestGraph = Graph<TestOps>;
using Executor = ReferenceExecutor<TestOps>;

Weight weight(Shape s, std::vector<float> values) {
  return Weight{.desc = TensorDesc{s}, .data = std::make_shared<std::vector<float> const>(std::move(values))};
}

TEST(ReferenceExecutor, SmallNetworkEndToEnd) {
  // conv 3x3 (same, relu) -> batchnorm -> maxpool 2x2 -> global avgpool -> flatten -> linear -> softmax.
  // Weights are ones/zeros so the result is computed by hand: x = ones [1,1,4,4].
  //   conv with a ones kernel, pad 1: box counts 4 6 6 4 / 6 9 9 6 / 6 9 9 6 / 4 6 6 4, two equal channels;
  //   batchnorm with mean 0, var 1 - eps, scale 1, bias 0: unchanged;
  //   maxpool 2x2 stride 2: 9 in each quadrant; global average: 9 per channel;
  //   linear [2,3] with columns (1,1), (0,0), (1,0): logits (18, 0, 9); softmax of those.
  TestGraph g;
  float eps = 1e-5f;
  NodeId x = g.add(Input{{Shape{1, 1, 4, 4}}, "image"}, {});
  NodeId w = g.add(weight({2, 1, 3, 3}, std::vector<float>(18, 1.f)), {}, "conv.w");
  NodeId b = g.add(weight({2}, {0, 0}), {}, "conv.b");
  NodeId c = g.add(Conv2D{.pad = {1, 1, 1, 1}, .act = Activation::relu}, {Value{x}, Value{w}, Value{b}});
  NodeId one = g.add(weight({2}, {1, 1}), {});
  NodeId zero = g.add(weight({2}, {0, 0}), {});
  NodeId var = g.add(weight({2}, {1 - eps, 1 - eps}), {});
  NodeId bn = g.add(BatchNorm{.epsilon = eps}, {Value{c}, Value{one}, Value{zero}, Value{zero}, Value{var}});
  NodeId mp = g.add(Pool2D{.kind = PoolKind::max, .kernel = {2, 2}, .stride = {2, 2}}, {Value{bn}});
  NodeId gp = g.add(Pool2D{.kind = PoolKind::avg, .global = true}, {Value{mp}});
  NodeId flat = g.add(Reshape{.shape = {1, -1}}, {Value{gp}});
  NodeId fc = g.add(weight({2, 3}, {1, 0, 1, 1, 0, 0}), {}, "fc.w");
  NodeId logits = g.add(MatMul{}, {Value{flat}, Value{fc}});
  NodeId sm = g.add(Softmax{}, {Value{logits}});
  g.set_outputs({Value{sm}, Value{c}});
  auto out = Executor{}.run(g, {Tensor({1, 1, 4, 4}, std::vector<float>(16, 1.f))});
  ASSERT_EQ(out.size(), 2u);
  double e18 = std::exp(18.0), e9 = std::exp(9.0), total = e18 + 1 + e9;
  EXPECT_TRUE(tensor_near(out[0], {1, 3}, {static_cast<float>(e18 / total), static_cast<float>(1 / total), static_cast<float>(e9 / total)}));
  std::vector<float> box = {4, 6, 6, 4, 6, 9, 9, 6, 6, 9, 9, 6, 4, 6, 6, 4};
  std::vector<float> both = box;
  both.insert(both.end(), box.begin(), box.end());
  EXPECT_TRUE(tensor_near(out[1], {1, 2, 4, 4}, both));
}

}  // namespace executor_network_test
}  // namespace autograph
