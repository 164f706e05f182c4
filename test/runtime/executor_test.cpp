#include "autograph/runtime/reference_executor.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <numeric>
#include <string>

#include "kernel_testing.hpp"

namespace autograph {
namespace {

using testing::tensor_near;

template <class... Ops>
constexpr bool every_op_runs(OpSet<Ops...> const*) {
  return (ReferenceExecutable<Ops> && ...);
}
static_assert(every_op_runs(static_cast<BuiltinOps const*>(nullptr)), "a built-in op has no reference kernel");

/// The message of the ExecutionError `f` throws ("" when it throws none).
template <class F>
std::string execution_error(F f) {
  try {
    f();
  } catch (ExecutionError const& e) {
    return e.what();
  }
  return "";
}

Weight weight(Shape s, std::vector<float> values) { return Weight{TensorDesc{s}, std::make_shared<std::vector<float> const>(std::move(values))}; }

/// z = x + 2y, for x and y of shape [1,4].
struct AddScaled {
  Graph<> g;
  NodeId x = g.add(Input{{Shape{1, 4}}, "x"}, {});
  NodeId y = g.add(Input{{Shape{1, 4}}, "y"}, {});
  NodeId y2 = g.add(Scale{.scale = 2}, {Value{y}});
  NodeId z = g.add(Add{}, {Value{x}, Value{y2}});
  AddScaled() { g.set_outputs({Value{z}}); }
};

Tensor X() { return Tensor({1, 4}, {1, 2, 3, 4}); }
Tensor Y() { return Tensor({1, 4}, {10, 20, 30, 40}); }

TEST(ReferenceExecutor, PositionalAndNamedBindingAgree) {
  AddScaled m;
  ReferenceExecutor<> ex;
  auto positional = ex.run(m.g, {X(), Y()});  // in the order of g.inputs(): x, then y
  auto named = ex.run(m.g, std::map<std::string, Tensor>{{"y", Y()}, {"x", X()}});
  ASSERT_EQ(positional.size(), 1u);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_TRUE(tensor_near(positional[0], {1, 4}, {21, 42, 63, 84}));  // 1 + 2*10, ...
  EXPECT_TRUE(tensor_near(named[0], {1, 4}, {21, 42, 63, 84}));
}

TEST(ReferenceExecutor, MissingInputIsAnError) {
  AddScaled m;
  ReferenceExecutor<> ex;
  EXPECT_NE(execution_error([&] { ex.run(m.g, {X()}); }).find("2 inputs"), std::string::npos);
  EXPECT_NE(execution_error([&] { ex.run(m.g, std::map<std::string, Tensor>{{"x", X()}}); }).find("'y'"), std::string::npos);
  EXPECT_NE(execution_error([&] { ex.run(m.g, std::map<std::string, Tensor>{{"x", X()}, {"y", Y()}, {"w", Y()}}); }).find("'w'"),
            std::string::npos);
}

TEST(ReferenceExecutor, WrongInputShapeNamesInputAndShapes) {
  AddScaled m;
  std::string msg = execution_error([&] { ReferenceExecutor<>{}.run(m.g, {X(), Tensor({4}, {1, 2, 3, 4})}); });
  EXPECT_NE(msg.find("'y'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1,4]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[4]"), std::string::npos) << msg;
}

TEST(ReferenceExecutor, WeightWithoutDataNamesTheWeight) {
  Graph<> g;
  NodeId x = g.add(Input{{Shape{1, 4}}, "x"}, {});
  NodeId w = g.add(Weight{.desc = TensorDesc{Shape{4, 2}}, .data = nullptr}, {}, "fc.weight");
  NodeId y = g.add(MatMul{}, {Value{x}, Value{w}});
  g.set_outputs({Value{y}});
  std::string msg = execution_error([&] { ReferenceExecutor<>{}.run(g, {X()}); });
  EXPECT_NE(msg.find("fc.weight"), std::string::npos) << msg;
}

TEST(ReferenceExecutor, WeightWithDataIsUsed) {
  // (1,2,3,4) x [[1,0],[0,1],[1,0],[0,1]] = (1+3, 2+4) = (4, 6)
  Graph<> g;
  NodeId x = g.add(Input{{Shape{1, 4}}, "x"}, {});
  NodeId w = g.add(weight({4, 2}, {1, 0, 0, 1, 1, 0, 0, 1}), {}, "fc.weight");
  NodeId y = g.add(MatMul{}, {Value{x}, Value{w}});
  g.set_outputs({Value{y}});
  auto out = ReferenceExecutor<>{}.run(g, {X()});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(tensor_near(out[0], {1, 2}, {4, 6}));
}

TEST(ReferenceExecutor, SplitOutputsFeedSeveralConsumers) {
  // x = (1,2,3,4) split (1, 3): a = (1), b = (2,3,4).
  // a*10 = 10; sum(b) = 9; concat(b, a) = (2,3,4,1).
  Graph<> g;
  NodeId x = g.add(Input{{Shape{1, 4}}, "x"}, {});
  NodeId s = g.add(Split{.axis = 1, .sizes = {1, 3}}, {Value{x}});
  NodeId a10 = g.add(Scale{.scale = 10}, {Value{s, 0}});
  NodeId sum = g.add(Reduce{.kind = ReduceKind::sum, .axes = {1}}, {Value{s, 1}});
  NodeId cat = g.add(Concat{.axis = 1}, {Value{s, 1}, Value{s, 0}});
  g.set_outputs({Value{a10}, Value{sum}, Value{cat}});
  auto out = ReferenceExecutor<>{}.run(g, {X()});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(tensor_near(out[0], {1, 1}, {10}));
  EXPECT_TRUE(tensor_near(out[1], {1, 1}, {9}));
  EXPECT_TRUE(tensor_near(out[2], {1, 4}, {2, 3, 4, 1}));
}

TEST(ReferenceExecutor, ReleasingIntermediatesKeepsOutputs) {
  // s = 2x is freed after its last reader runs; r, a view of s, is an output and must keep
  // the data alive. Outputs also include the input itself, a value listed twice, and an
  // intermediate that a later node still reads.
  Graph<> g;
  NodeId x = g.add(Input{{Shape{1, 4}}, "x"}, {});
  NodeId s = g.add(Scale{.scale = 2}, {Value{x}});
  NodeId r = g.add(Reshape{.shape = {2, 2}}, {Value{s}});
  NodeId n = g.add(Neg{}, {Value{r}});
  NodeId m = g.add(Mul{}, {Value{n}, Value{n}});  // n read twice by one node
  NodeId q = g.add(Relu{}, {Value{m}});
  g.set_outputs({Value{r}, Value{q}, Value{x}, Value{q}, Value{n}});
  ReferenceExecutor<> ex;
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

TEST(ReferenceExecutor, SmallNetworkEndToEnd) {
  // conv 3x3 (same, relu) -> batchnorm -> maxpool 2x2 -> global avgpool -> flatten -> linear -> softmax.
  // Weights are ones/zeros so the result is computed by hand: x = ones [1,1,4,4].
  //   conv with a ones kernel, pad 1: box counts 4 6 6 4 / 6 9 9 6 / 6 9 9 6 / 4 6 6 4, two equal channels;
  //   batchnorm with mean 0, var 1 - eps, scale 1, bias 0: unchanged;
  //   maxpool 2x2 stride 2: 9 in each quadrant; global average: 9 per channel;
  //   linear [2,3] with columns (1,1), (0,0), (1,0): logits (18, 0, 9); softmax of those.
  Graph<> g;
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
  auto out = ReferenceExecutor<>{}.run(g, {Tensor({1, 1, 4, 4}, std::vector<float>(16, 1.f))});
  ASSERT_EQ(out.size(), 2u);
  double e18 = std::exp(18.0), e9 = std::exp(9.0), total = e18 + 1 + e9;
  EXPECT_TRUE(tensor_near(out[0], {1, 3}, {static_cast<float>(e18 / total), static_cast<float>(1 / total), static_cast<float>(e9 / total)}));
  std::vector<float> box = {4, 6, 6, 4, 6, 9, 9, 6, 6, 9, 9, 6, 4, 6, 6, 4};
  std::vector<float> both = box;
  both.insert(both.end(), box.begin(), box.end());
  EXPECT_TRUE(tensor_near(out[1], {1, 2, 4, 4}, both));
}

}  // namespace
}  // namespace autograph
