// The built-in algebraic rules as laws: start graph => the graph the rule leaves when applied
// until nothing matches, and graphs a rule must leave alone with the reason it gives.
// Literal syntax: test/testing/graph_literal.hpp (leaves are 2x3 inputs unless a shape is given).
#include <gtest/gtest.h>

#include <autograph/rules/library/default.hpp>

#include "testing/rule_laws.hpp"

using namespace autograph;
using namespace autograph::rules;
using autograph::testing::expect_no_rewrite;
using autograph::testing::expect_rewrites;
using autograph::testing::rewrite_greedily;
using autograph::testing::to_literal;

TEST(Laws, Commute) {
  expect_rewrites<CommuteAdd>("add(a,b)", "add(b,a)");
  expect_rewrites<CommuteMul>("relu(mul(a,b:3))", "relu(mul(b:3,a))");
  expect_no_rewrite<CommuteAdd>("add(a,a)", "both operands are one value");
  expect_no_rewrite<CommuteMul>("add(a,b)", "commute-mul does not start at Add ops");
  // Structural equality takes a + b and b + a as one graph; the printed order shows the swap,
  // and the driver stops at the repeat instead of swapping back forever.
  auto r = rewrite_greedily<CommuteAdd>("add(a,b)");
  EXPECT_EQ(to_literal(r.graph), "add(b,a)");
  EXPECT_EQ(r.stop, GreedyStop::repeated);
  EXPECT_EQ(r.applications[0], 1u);
}

TEST(Laws, Associate) {
  expect_rewrites<AssociateAdd>("add(add(a,b),c)", "add(a,add(b,c))");
  expect_rewrites<AssociateAdd>("add(add(add(a,b),c),d)", "add(a,add(b,add(c,d)))");
  expect_rewrites<AssociateMul>("mul(mul(a,b:3),c:2x1)", "mul(a,mul(b:3,c:2x1))");
  expect_no_rewrite<AssociateAdd>("add(a,add(b,c))", "operator type differs");  // a is not an add
  expect_no_rewrite<AssociateMul>("mul(add(a,b),c)", "operator type differs");
}

TEST(Laws, FactorAndDistribute) {
  expect_rewrites<FactorMulOverAdd>("add(mul(a,b),mul(a,c))", "mul(a,add(b,c))");
  expect_rewrites<FactorMulOverAdd>("add(mul(b,a),mul(c,a))", "mul(a,add(b,c))");
  expect_no_rewrite<FactorMulOverAdd>("add(mul(a,b),mul(c,d))", "a variable used twice is bound to two different values");
  expect_rewrites<DistributeMulOverAdd>("mul(a,add(b,c))", "add(mul(a,b),mul(a,c))");
  expect_rewrites<DistributeMulOverAdd>("mul(add(b,c),a)", "add(mul(a,b),mul(a,c))");
  expect_no_rewrite<DistributeMulOverAdd>("mul(a,sub(b,c))", "operator type differs");
}

TEST(Laws, SimplifySruGate) {
  expect_rewrites<SimplifySruGate>("add(mul(x,y),mul(scale<-1,1>(x),z))", "add(mul(x,sub(y,z)),z)");
  expect_rewrites<SimplifySruGate>("add(mul(z,scale<-1,1>(x)),mul(y,x))", "add(mul(x,sub(y,z)),z)");
  // explain() reports the last candidate's failure: with commutative ops that is the last
  // operand order tried, here a mul input that is not the scale.
  expect_no_rewrite<SimplifySruGate>("add(mul(x,y),mul(scale<-1,2>(x),z))", "operator type differs");
}

TEST(Laws, Transposes) {
  expect_rewrites<TransposeTranspose>("relu(transpose(transpose(x)))", "relu(x)");
  expect_rewrites<TransposeTranspose>("transpose<1,2,0>(transpose<1,2,0>(x:2x3x4))", "transpose<2,0,1>(x:2x3x4)");
  expect_no_rewrite<TransposeTranspose>("transpose(relu(x))", "operator type differs");
  expect_rewrites<TransposeOfMatMul>("transpose(matmul(a:2x3,b:3x4))", "matmul(transpose(b:3x4),transpose(a:2x3))");
  expect_no_rewrite<TransposeOfMatMul>("transpose<1,0,2>(matmul(a:2x2x3,b:3x4))", "the transpose does not swap the last two axes");
  expect_rewrites<MatMulOfTransposes>("matmul(transpose(b:4x3),transpose(a:5x4))", "transpose(matmul(a:5x4,b:4x3))");
  expect_no_rewrite<MatMulOfTransposes>("matmul(transpose<1,0,2>(b:3x2x3),transpose(a:5x3))", "the transpose does not swap the last two axes");
}

TEST(Laws, MatMulReassociation) {
  expect_rewrites<MatMulReassociateRight>("matmul(matmul(a:2x3,b:3x4),c:4x5)", "matmul(a:2x3,matmul(b:3x4,c:4x5))");
  expect_no_rewrite<MatMulReassociateRight>("matmul(matmul_relu(a:2x3,b:3x4),c:4x5)", "the inner matmul applies an activation");
  expect_rewrites<MatMulReassociateLeft>("matmul(a:2x3,matmul(b:3x4,c:4x5))", "matmul(matmul(a:2x3,b:3x4),c:4x5)");
  expect_no_rewrite<MatMulReassociateLeft>("matmul(a:2x3,matmul_tanh(b:3x4,c:4x5))", "the inner matmul applies an activation");
}

TEST(Laws, Concats) {
  expect_rewrites<UnaryThroughConcat>("concat<1>(relu(x),relu(y:2x4))", "relu(concat<1>(x,y:2x4))");
  expect_no_rewrite<UnaryThroughConcat>("concat<1>(relu(x),sigmoid(y))", "the elementwise ops differ");
  expect_no_rewrite<UnaryThroughConcat>("concat<1>(relu(x),relu(x))", "an op feeds the concat twice");
  expect_rewrites<BinaryThroughConcat>("concat<0>(add(a,b),add(c,d))", "add(concat<0>(a,c),concat<0>(b,d))");
  expect_no_rewrite<BinaryThroughConcat>("concat<0>(add(a,b:3),add(c,d:3))", "the binary op broadcasts");
  expect_rewrites<SplitConcatCancel>("relu(split<1,2,3>(concat<1>(x:2x2,y))#0), sigmoid(split<1,2,3>(concat<1>(x,y))#1)",
                                     "relu(x:2x2), sigmoid(y)");
  expect_no_rewrite<SplitConcatCancel>("split<1,3,2>(concat<1>(x:2x2,y))#0, split<1,3,2>(concat<1>(x,y))#1",
                                       "split and concat cut at different places");
  expect_rewrites<ConcatSplitCancel>("relu(concat<1>(split<1,2,2>(x:2x4)#0,split<1,2,2>(x)#1))", "relu(x:2x4)");
  expect_no_rewrite<ConcatSplitCancel>("concat<1>(split<1,2,2>(x:2x4)#1,split<1,2,2>(x)#0)", "the concat does not take the split's pieces in order");
}

TEST(Laws, ActivationFusion) {
  expect_rewrites<FuseConvRelu>("relu(conv2d<1>(x:1x4x8x8,w:weight:6x4x3x3))", "conv2d_relu<1>(x:1x4x8x8,w:weight:6x4x3x3)");
  expect_no_rewrite<FuseConvRelu>("relu(conv2d_sigmoid<1>(x:1x4x8x8,w:weight:6x4x3x3))", "the op already applies an activation");
  expect_rewrites<FuseMatMulTanh>("tanh(matmul(a:2x3,b:3x4))", "matmul_tanh(a:2x3,b:3x4)");
  expect_no_rewrite<FuseMatMulRelu>("sigmoid(matmul(a:2x3,b:3x4))", "fuse-matmul-relu does not start at Sigmoid ops");
}
