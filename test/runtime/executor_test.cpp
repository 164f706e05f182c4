// ReferenceExecutor: binding inputs, and the errors it reports.
#include "autograph/runtime/reference_executor.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "kernel_testing.hpp"

namespace autograph {
namespace executor_test {

using testing::tensor_near;

template <class... Ops>
constexpr bool every_op_runs(OpSet<Ops...> const*) {
  return (ReferenceExecutable<Ops> && ...);
}
static_assert(every_op_runs(static_cast<BuiltinOps const*>(nullptr)), "a built-in op has no reference kernel");

// The executor is generic over the op set; these tests run it over just the ops they use, since
// ReferenceExecutor<BuiltinOps> compiles every kernel (seconds per translation unit).
using TestOps = OpSet<Input, Weight, MatMul, Add, Scale>;
using Executor = ReferenceExecutor<TestOps>;

/// z = x + 2y, for x and y of shape [1,4].
struct AddScaled {
  Graph<TestOps> g;
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
  Executor ex;
  auto positional = ex.run(m.g, {X(), Y()});  // in the order of g.inputs(): x, then y
  auto named = ex.run(m.g, std::map<std::string, Tensor>{{"y", Y()}, {"x", X()}});
  ASSERT_EQ(positional.size(), 1u);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_TRUE(tensor_near(positional[0], {1, 4}, {21, 42, 63, 84}));  // 1 + 2*10, ...
  EXPECT_TRUE(tensor_near(named[0], {1, 4}, {21, 42, 63, 84}));
}

TEST(ReferenceExecutor, MissingInputIsAnError) {
  AddScaled m;
  Executor ex;
  EXPECT_NE(testing::execution_error([&] { ex.run(m.g, {X()}); }).find("2 inputs"), std::string::npos);
  EXPECT_NE(testing::execution_error([&] { ex.run(m.g, std::map<std::string, Tensor>{{"x", X()}}); }).find("'y'"), std::string::npos);
  EXPECT_NE(testing::execution_error([&] { ex.run(m.g, std::map<std::string, Tensor>{{"x", X()}, {"y", Y()}, {"w", Y()}}); }).find("'w'"),
            std::string::npos);
}

TEST(ReferenceExecutor, WrongInputShapeNamesInputAndShapes) {
  AddScaled m;
  std::string msg = testing::execution_error([&] { Executor{}.run(m.g, {X(), Tensor({4}, {1, 2, 3, 4})}); });
  EXPECT_NE(msg.find("'y'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1,4]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[4]"), std::string::npos) << msg;
}

TEST(ReferenceExecutor, WeightWithoutDataNamesTheWeight) {
  Graph<TestOps> g;
  NodeId x = g.add(Input{{Shape{1, 4}}, "x"}, {});
  NodeId w = g.add(Weight{.desc = TensorDesc{Shape{4, 2}}, .data = nullptr}, {}, "fc.weight");
  NodeId y = g.add(MatMul{}, {Value{x}, Value{w}});
  g.set_outputs({Value{y}});
  std::string msg = testing::execution_error([&] { Executor{}.run(g, {X()}); });
  EXPECT_NE(msg.find("fc.weight"), std::string::npos) << msg;
}

TEST(ReferenceExecutor, WeightWithDataIsUsed) {
  // (1,2,3,4) x [[1,0],[0,1],[1,0],[0,1]] = (1+3, 2+4) = (4, 6)
  Graph<TestOps> g;
  NodeId x = g.add(Input{{Shape{1, 4}}, "x"}, {});
  auto data = std::make_shared<std::vector<float> const>(std::vector<float>{1, 0, 0, 1, 1, 0, 0, 1});
  NodeId w = g.add(Weight{.desc = TensorDesc{Shape{4, 2}}, .data = data}, {}, "fc.weight");
  NodeId y = g.add(MatMul{}, {Value{x}, Value{w}});
  g.set_outputs({Value{y}});
  auto out = Executor{}.run(g, {X()});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(tensor_near(out[0], {1, 2}, {4, 6}));
  EXPECT_EQ(out[0].storage() == data, false);  // a result, not the weight's storage
}

}  // namespace executor_test
}  // namespace autograph
