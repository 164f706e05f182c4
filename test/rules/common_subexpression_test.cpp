// eliminate-common-subexpression: the later of two nodes that compute the same op of the same
// inputs goes, its readers read the earlier one; anything that differs (an attribute, an input,
// the inputs' order, a weight's data) keeps both.
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/graph/structural_hash.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/rules/apply_greedily.hpp>
#include <autograph/rules/library/default.hpp>
#include <autograph/runtime/equivalence.hpp>

#include "testing/graph_literal.hpp"

using namespace autograph;
using namespace autograph::rules;
using autograph::testing::graph_literal;
using autograph::testing::to_literal;

namespace {
GreedyResult<BuiltinOps> eliminate(Graph<> const& g) {
  auto r = apply_greedily(g, EliminateCommonSubexpression{});
  validate(r.graph);
  auto c = compare_graphs(g, r.graph, 1e-6, 5);
  EXPECT_TRUE(c.passed) << c.why;
  return r;
}
}  // namespace

TEST(CommonSubexpression, TheLaterOfTwoReLUsOfOneInputGoes) {
  GraphBuilder<> b;
  auto x = b.input("x", {2, 3});
  auto y1 = b.relu(x), y2 = b.relu(x);
  Graph<> g = std::move(b).build({b.add(y1, b.sigmoid(y2))});
  auto r = eliminate(g);
  EXPECT_TRUE(structurally_equal(r.graph, graph_literal("add(relu(x),sigmoid(relu(x)))"))) << to_literal(r.graph);
  EXPECT_EQ(r.applications[0], 1u);
}

TEST(CommonSubexpression, DuplicatesOfDuplicatesGoOnTheNextPass) {
  // Two branches relu -> max pool -> a graph output each: the pools read different ReLUs until
  // the ReLUs merge; every duplicate maps to the first node, the graph outputs included.
  GraphBuilder<> b;
  auto x = b.input("x", {1, 2, 6, 6});
  PoolOptions p{.stride = {2, 2}, .pad = {1, 1, 1, 1}};
  Value a = b.max_pool(b.relu(x), {3, 3}, p), c = b.max_pool(b.relu(x), {3, 3}, p), d = b.relu(x);
  Graph<> g = std::move(b).build({a, c, d});
  auto r = eliminate(g);
  EXPECT_EQ(r.total_applications(), 3u);
  EXPECT_EQ(r.passes, 2u);
  EXPECT_EQ(r.graph.outputs()[0], r.graph.outputs()[1]);
  EXPECT_EQ(r.graph.num_nodes(), 3u) << to_literal(r.graph);  // x, one relu, one pool
}

TEST(CommonSubexpression, WhatDiffersStays) {
  GraphBuilder<> b;
  auto x = b.input("x", {1, 2, 6, 6});
  auto y = b.input("y", {1, 2, 6, 6});
  std::vector<Value> outs{
      b.max_pool(x, {3, 3}, {.stride = {1, 1}}), b.max_pool(x, {3, 3}, {.stride = {2, 2}}),  // an attribute
      b.relu(x), b.relu(y),                                                              // an input
      b.sub(x, y), b.sub(y, x),                                                          // the inputs' order
      b.relu(x), b.sigmoid(x),  // the op (this relu is the duplicate of the one above: the only match)
  };
  // Two weights of one shape hold different data: their convolutions differ.
  outs.push_back(b.conv2d(x, 2, {1, 1}));
  outs.push_back(b.conv2d(x, 2, {1, 1}));
  Graph<> g = std::move(b).build(outs);
  fill_random_weights(g, 3);
  auto r = eliminate(g);
  EXPECT_EQ(r.total_applications(), 1u);
  EXPECT_EQ(r.graph.num_nodes(), g.num_nodes() - 1);
}

TEST(CommonSubexpression, EveryOutputOfAMultiOutputOpMapsToTheKeptOne) {
  GraphBuilder<> b;
  auto x = b.input("x", {2, 6});
  auto s1 = b.split(x, 1, {2, 4}), s2 = b.split(x, 1, {2, 4});
  Graph<> g = std::move(b).build({b.relu(s1[1]), b.sigmoid(s2[0]), b.relu(s2[1])});
  auto r = eliminate(g);
  EXPECT_EQ(r.total_applications(), 2u);  // the splits, then the two ReLUs of one piece
  EXPECT_TRUE(structurally_equal(r.graph, graph_literal("relu(split<1,2,4>(x:2x6)#1), sigmoid(split<1,2,4>(x:2x6)#0), relu(split<1,2,4>(x:2x6)#1)")))
      << to_literal(r.graph);
}
