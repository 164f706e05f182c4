// GraphFacts (topological positions, placed nodes, convexity) and a node group's signature: the
// graph-layer facts the placement and the fusion layers both key their costs by.
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/graph/graph_facts.hpp>
#include <autograph/graph/group_signature.hpp>

namespace autograph {
namespace {

/// conv -> relu -> add(., y) -> sigmoid, with the conv's weight scaled (a weight-only node).
struct Chain {
  Graph<> g;
  NodeId conv, relu, add, sig, scaled;
  Chain() {
    GraphBuilder b;
    auto x = b.input("x", {1, 4, 8, 8}), y = b.input("y", {1, 4, 8, 8});
    auto c = b.conv2d(x, 4, {3, 3});
    auto r = b.relu(c);
    auto a = b.add(r, y);
    auto w = b.scale(b.weight("w", {1, 4, 8, 8}), 2.f);
    auto s = b.sigmoid(b.add(a, w));
    conv = c.node, relu = r.node, add = a.node, sig = s.node, scaled = w.node;
    g = std::move(b).build({s});
  }
};

TEST(GraphFacts, PlacesKernelsButNotSourcesOrWeightOnlyNodes) {
  Chain c;
  GraphFacts<BuiltinOps> facts(c.g);
  EXPECT_TRUE(facts.placed(c.conv) && facts.placed(c.add) && facts.placed(c.sig));
  EXPECT_FALSE(facts.placed(c.scaled));
  EXPECT_TRUE(facts.constant(c.scaled));
  EXPECT_FALSE(facts.placed(c.g.inputs()[0]));
  EXPECT_LT(facts.position(c.conv), facts.position(c.relu));
  EXPECT_LT(facts.position(c.add), facts.position(c.sig));
}

TEST(GraphFacts, ConvexRejectsAGroupAPathLeavesAndReenters) {
  Chain c;
  GraphFacts<BuiltinOps> facts(c.g);
  EXPECT_TRUE(facts.convex(NodeGroup{{c.conv, c.relu}}.nodes));
  EXPECT_FALSE(facts.convex(NodeGroup{{c.conv, c.add}}.nodes));  // conv -> relu -> add leaves through relu
}

TEST(GroupSignature, NamesOpsInputsConstantsAndOutputs) {
  Chain c;
  GraphFacts<BuiltinOps> facts(c.g);
  EXPECT_EQ(group_signature(facts, NodeGroup{{c.conv, c.relu}}),
            "Conv2D{" + c.g[c.conv].op.attributes() + "}(f32[1,4,8,8],const f32[4,4,3,3]); Relu{}(%0) -> %1");
  EXPECT_EQ(group_signature(facts, NodeGroup{{c.add}}), "Add{}(f32[1,4,8,8],f32[1,4,8,8]) -> %0");
}

}  // namespace
}  // namespace autograph
