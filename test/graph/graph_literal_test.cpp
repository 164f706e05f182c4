// The test-only graph literal (test/testing/graph_literal.hpp): what it builds, that shared
// text is a shared node, that it prints back to itself, and that bad text is refused saying
// where and what was expected.
#include <gtest/gtest.h>

#include <autograph/graph/structural_hash.hpp>

#include "testing/graph_literal.hpp"
#include "testing/graph_queries.hpp"

using namespace autograph;
using autograph::testing::graph_literal;
using autograph::testing::to_literal;

namespace {
using autograph::testing::count_ops;
/// Parsing `text` throws an Error whose message contains every needle.
void expect_refused(std::string_view text, std::vector<std::string> const& needles) {
  try {
    graph_literal(text);
    ADD_FAILURE() << "accepted: " << text;
  } catch (Error const& e) {
    for (auto const& n : needles) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(GraphLiteral, BuildsOpsOverNamedInputsOfTheDefaultShape) {
  Graph<> g = graph_literal("add(mul(a,b),relu(c))");
  EXPECT_EQ(g.num_nodes(), 6u);
  ASSERT_EQ(g.outputs().size(), 1u);
  auto const& sum = g[g.outputs()[0].node];
  EXPECT_TRUE(sum.is<Add>());
  EXPECT_TRUE(g[sum.inputs[0].node].is<Mul>());
  EXPECT_TRUE(g[sum.inputs[1].node].is<Relu>());
  EXPECT_EQ(g.desc(g.outputs()[0]).shape, (Shape{2, 3}));
  auto const* a = g[g[sum.inputs[0].node].inputs[0].node].get_if<Input>();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->label, "a");
}

TEST(GraphLiteral, TheSameTextIsTheSameNode) {
  Graph<> g = graph_literal("add(mul(a,b),mul(a,b))");
  EXPECT_EQ(count_ops(g, "Mul"), 1u);
  EXPECT_EQ(count_ops(g, "Input"), 2u);
  auto const& sum = g[g.outputs()[0].node];
  EXPECT_EQ(sum.inputs[0], sum.inputs[1]);
  // Different text, different nodes; whitespace is not part of the text.
  EXPECT_EQ(count_ops(graph_literal("add(mul(a,b),mul(b,a))"), "Mul"), 2u);
  EXPECT_EQ(count_ops(graph_literal("add(mul(a, b), mul(a,b))"), "Mul"), 1u);
}

TEST(GraphLiteral, ShapesWeightsParametersPortsAndSeveralOutputs) {
  Graph<> g = graph_literal("relu(conv2d<1>(x:1x4x8x8, w:weight:6x4x3x3)), matmul(a:2x3, b:3x5)");
  ASSERT_EQ(g.outputs().size(), 2u);
  EXPECT_EQ(g.desc(g.outputs()[0]).shape, (Shape{1, 6, 8, 8}));
  EXPECT_EQ(g.desc(g.outputs()[1]).shape, (Shape{2, 5}));
  EXPECT_EQ(count_ops(g, "Weight"), 1u);
  // A shape given at a later mention counts for the earlier ones.
  EXPECT_EQ(graph_literal("add(x, relu(x:4x4))").desc(Value{0}).shape, (Shape{4, 4}));
  EXPECT_EQ(graph_literal("transpose(x:2x3x4)").desc(graph_literal("transpose(x:2x3x4)").outputs()[0]).shape, (Shape{2, 4, 3}));
  Graph<> s = graph_literal("split<1,1,2>(x)#1, scale<-1,1>(x)");
  EXPECT_EQ(s.desc(s.outputs()[0]).shape, (Shape{2, 2}));
  EXPECT_EQ(s.outputs()[0].port, 1u);
  auto const* sc = s[s.outputs()[1].node].get_if<Scale>();
  ASSERT_NE(sc, nullptr);
  EXPECT_EQ(sc->scale, -1.f);
  EXPECT_EQ(sc->shift, 1.f);
  EXPECT_EQ(graph_literal("matmul_relu(a:2x3,b:3x4)")[2].get_if<MatMul>()->act, Activation::relu);
}

TEST(GraphLiteral, PrintsBackToTheSameGraph) {
  for (std::string_view text : {"add(mul(a,b),mul(a,c))", "concat<1>(relu(x:2x2),sigmoid(y:2x3))", "transpose<1,0,2>(x:2x3x4)",
                                "split<0,1,1>(x)#0, split<0,1,1>(x)#1", "conv2d_relu<1>(x:1x4x8x8,w:weight:4x4x3x3)", "scale<-1,1>(a)",
                                "matmul(transpose(a:3x2),b:3x4)"}) {
    Graph<> g = graph_literal(text);
    std::string printed = to_literal(g);
    EXPECT_TRUE(structurally_equal(g, graph_literal(printed))) << text << " printed as " << printed;
  }
  EXPECT_EQ(to_literal(graph_literal("add(mul( a ,b), c)")), "add(mul(a,b),c)");
  EXPECT_EQ(to_literal(graph_literal("add(x:4x4,x)")), "add(x:4x4,x)");
}

TEST(GraphLiteral, BadTextIsRefusedWithThePositionAndWhatWasExpected) {
  expect_refused("add(a,b", {"position 7", "expected ')'", "got the end"});
  expect_refused("add(a,,b)", {"position 6", "expected a name", "got ','"});
  expect_refused("frobnicate(a)", {"position 0", "unknown op 'frobnicate'"});
  expect_refused("add(a,b) c", {"position 9", "expected ',' or the end"});
  expect_refused("relu(x:2xq)", {"position 9", "a dimension"});
  expect_refused("concat<one>(a,b)", {"position 7", "a number"});
  expect_refused("add(a:2x3, a:3x2)", {"'a' is [3,2] here but [2,3] before"});
  expect_refused("add(w:weight:2x3, w:2x3)", {"'w' is an input here but a weight before"});
  expect_refused("relu<1>(a)", {"relu takes 0 parameters, got 1"});
  expect_refused("split<1,1,2>(x)#2", {"split has 2 outputs, no #2"});
  // An op that rejects its inputs: the graph's error, prefixed with where the op is.
  expect_refused("relu(add(a, b:4x5))", {"position 5", "Add", "[2,3]", "[4,5]"});
  expect_refused("matmul(a)", {"position 0", "MatMul", "takes 2 to 3 inputs, got 1"});
}
