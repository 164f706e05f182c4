#include <autograph/graph/builder.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/graph/weights.hpp>
#include <gtest/gtest.h>

using namespace autograph;

TEST(GraphBuilder, ReadsLikeAModel) {
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 32, 32});
  Value y;
  {
    auto s = b.scope("stem");
    y = b.relu(b.batch_norm(b.conv2d(x, 16, {3, 3}, {.stride = {2, 2}, .pad = std::array<std::int64_t, 4>{1, 1, 1, 1}})));
  }
  EXPECT_EQ(b.shape(y), (Shape{1, 16, 16, 16}));
  auto g = std::move(b).build({y});
  validate(g);
  // Input, conv + weight, bn + 4 params, relu
  EXPECT_EQ(g.num_nodes(), 9u);
  std::vector<std::string> names;
  for (NodeId id : g.node_ids()) names.push_back(g[id].name);
  EXPECT_NE(std::ranges::find(names, "stem/conv"), names.end());
  EXPECT_NE(std::ranges::find(names, "stem/conv.weight"), names.end());
  EXPECT_NE(std::ranges::find(names, "stem/bn.var"), names.end());
}

TEST(GraphBuilder, UniqueAutoNames) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4});
  auto a = b.relu(x), c = b.relu(a);
  auto g = std::move(b).build({c});
  EXPECT_NE(g[a.node].name, g[c.node].name);
}

TEST(GraphBuilder, FailedCallLeavesGraphAsItWas) {
  GraphBuilder b;
  auto x = b.input("x", {1, 6, 8, 8});
  auto v = b.input("v", {5});
  auto y = b.input("y", {1, 6, 4, 4});
  auto before = b.graph().num_nodes();
  // 6 channels are not divisible by 4 groups: the weight made for the conv must be rolled back.
  EXPECT_THROW(b.conv2d(x, 8, {3, 3}, {.groups = 4}), ShapeError);
  EXPECT_THROW(b.conv2d(v, 8, {3, 3}), ShapeError);
  EXPECT_THROW(b.linear(v, 10, true), ShapeError);  // rank 1
  EXPECT_THROW(b.batch_norm(v), ShapeError);
  EXPECT_THROW(b.matmul(y, b.transpose(x, {0, 1, 3, 2})), ShapeError);  // 4x4 @ 8x8; the transpose stays
  EXPECT_THROW(b.concat({x, y}), ShapeError);
  EXPECT_EQ(b.graph().num_nodes(), before + 1);  // only the transpose was added
  validate(b.graph());
  // A correct call afterwards still works and names are still unique.
  auto c = b.conv2d(x, 8, {3, 3}, {.groups = 2});
  EXPECT_EQ(b.shape(c), (Shape{1, 8, 8, 8}));
}

TEST(GraphBuilder, LinearAndTransformerPieces) {
  GraphBuilder b;
  auto x = b.input("x", {2, 5, 8});
  auto h = b.linear(x, 16, true, Activation::relu);
  auto n = b.layer_norm(h);
  auto heads = b.transpose(b.reshape(n, {2, 5, 4, 4}), {0, 2, 1, 3});
  auto att = b.softmax(b.matmul(heads, b.transpose(heads, {0, 1, 3, 2})), -1);
  EXPECT_EQ(b.shape(att), (Shape{2, 4, 5, 5}));
  auto parts = b.split(n, -1, {4, 12});
  EXPECT_EQ(b.shape(parts[1]), (Shape{2, 5, 12}));
  auto g = std::move(b).build({att, parts[0]});
  validate(g);
  EXPECT_EQ(g.outputs().size(), 2u);
}

TEST(Weights, FillRandomIsReproducible) {
  auto make = [] {
    GraphBuilder b;
    auto x = b.input("x", {1, 3, 8, 8});
    auto y = b.batch_norm(b.conv2d(x, 4, {3, 3}));
    return std::move(b).build({y});
  };
  auto g1 = make(), g2 = make();
  EXPECT_EQ(fill_random_weights(g1, 42), 5u);
  fill_random_weights(g2, 42);
  for (NodeId id : g1.node_ids()) {
    auto const* w1 = g1[id].get_if<Weight>();
    if (!w1) continue;
    auto const* w2 = g2[id].get_if<Weight>();
    ASSERT_TRUE(w1->data && w2->data);
    EXPECT_EQ(*w1->data, *w2->data);
    if (g1[id].name.ends_with(".var")) {
      for (float v : *w1->data) EXPECT_GT(v, 0.f);  // variances must be positive
    }
  }
  EXPECT_EQ(fill_random_weights(g1, 42), 0u);  // nothing left to fill
}
