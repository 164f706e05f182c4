// weight_only_nodes() and is_weight_only(): the one definition of "computes only from weights"
// (cost models, rule matching and extract() all read it).
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/graph/subgraph.hpp>
#include <autograph/graph/weight_only.hpp>

namespace autograph {
namespace {

TEST(WeightOnly, WeightsAndWhatComputesOnlyFromThemButNotInputs) {
  GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto wa = b.weight("a", {2, 3}), wb = b.weight("b", {2, 3});
  auto w = b.relu(b.add(wa, wb));  // a chain of two transforms of weights
  auto mixed = b.add(x, w);
  auto g = std::move(b).build({b.relu(mixed)});
  auto all = weight_only_nodes(g);
  ASSERT_EQ(all.size(), g.id_bound());
  for (NodeId id : g.node_ids()) EXPECT_EQ(bool(all[id]), is_weight_only(g, id)) << g.label(id);
  EXPECT_TRUE(all[wa.node] && all[wb.node] && all[w.node]);
  EXPECT_TRUE(all[g[w.node].inputs[0].node]);  // the inner add
  EXPECT_FALSE(all[x.node]);                    // an Input is a source, not a weight
  EXPECT_FALSE(all[mixed.node]);
  EXPECT_FALSE(all[g.outputs()[0].node]);
}

TEST(WeightOnly, ExtractCopiesWeightTransformsIntoThePartThatReadsThem) {
  GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto w = b.scale(b.weight("a", {2, 3}), -1.f);
  auto y = b.add(x, w);
  auto g = std::move(b).build({b.relu(y)});
  auto sub = extract(g, {y.node});
  // The transform and its weight come along; only x becomes a boundary input.
  EXPECT_EQ(sub.inputs.size(), 1u);
  EXPECT_EQ(sub.inputs[0], x);
  auto inside = weight_only_nodes(sub.graph);
  std::size_t constants = 0;
  for (NodeId id : sub.graph.node_ids()) constants += inside[id];
  EXPECT_EQ(constants, 2u);  // the weight and its Scale
}

}  // namespace
}  // namespace autograph
