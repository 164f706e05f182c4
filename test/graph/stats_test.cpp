#include <autograph/graph/builder.hpp>
#include <autograph/graph/stats.hpp>
#include <autograph/io/dot.hpp>
#include <gtest/gtest.h>

using namespace autograph;

TEST(GraphStats, WidthCriticalPathParamsMacs) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  // Three parallel branches of different depth, joined by a concat.
  auto a = b.conv2d(x, 4, {1, 1});                                  // 1 op
  auto c = b.relu(b.conv2d(x, 4, {3, 3}));                          // 2 ops
  auto d = b.relu(b.conv2d(b.relu(b.conv2d(x, 4, {3, 3})), 4, {3, 3}));  // 4 ops
  auto g = std::move(b).build({b.concat({a, c, d})});
  auto s = graph_stats(g);
  EXPECT_EQ(s.operators, 8u);
  EXPECT_EQ(s.width, 3u);          // one op of each branch at a time
  EXPECT_EQ(s.critical_path, 5u);  // the 4-op branch + concat
  // weights: 4*4*1*1 + 3 * 4*4*3*3 = 16 + 432
  EXPECT_EQ(s.parameters, 448);
  // MACs: output 4x8x8 = 256 elements; 1x1: 256*4, 3x3: 256*36 (three of them)
  EXPECT_DOUBLE_EQ(s.macs, 256.0 * 4 + 3 * 256.0 * 36);
  EXPECT_EQ(s.edges, 7u);  // conv->relu (x3 chains: 1+1+2... ) counted between operator nodes
}

TEST(GraphStats, WidthOfAChainIsOne) {
  GraphBuilder b;
  Value v = b.input("x", {4});
  for (int i = 0; i < 10; ++i) v = b.relu(v);
  auto g = std::move(b).build({v});
  EXPECT_EQ(graph_stats(g).width, 1u);
  EXPECT_EQ(graph_stats(g).critical_path, 10u);
}

TEST(Dot, ExportsNodesEdgesAndColours) {
  GraphBuilder b;
  auto x = b.input("x", {1, 2, 4, 4});
  auto y = b.relu(b.conv2d(x, 3, {3, 3}, {}, "conv\"1"));
  auto g = std::move(b).build({y});
  std::string dot = to_dot(g, {.fill_color = [](NodeId id) { return id == 2 ? std::string("#ff0000") : std::string(); }});
  EXPECT_NE(dot.find("digraph autograph"), std::string::npos);
  EXPECT_NE(dot.find("Conv2D\\nconv\\\"1"), std::string::npos) << dot;  // names are escaped
  EXPECT_NE(dot.find("[1,2,4,4]"), std::string::npos);                 // edge labels carry shapes
  EXPECT_NE(dot.find("#ff0000"), std::string::npos);
  EXPECT_EQ(dot.find("weight"), std::string::npos);  // weights hidden by default
  EXPECT_NE(to_dot(g, {.show_weights = true}).find("conv\\\"1.weight"), std::string::npos);
}
