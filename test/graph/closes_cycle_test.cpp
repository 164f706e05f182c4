// closes_cycle(), and rewrite() refusing a rewrite that would close a cycle.
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/graph/closes_cycle.hpp>
#include <autograph/rules/library/grouped_conv.hpp>
#include <autograph/rules/rule.hpp>

namespace autograph {
namespace {

TEST(ClosesCycle, FindsACycleThroughTheGivenNodesOnly) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4});
  auto a = b.relu(x);
  auto c = b.relu(a);
  auto g = std::move(b).build({c});
  std::vector<NodeId> added{c.node};
  EXPECT_FALSE(closes_cycle(g, std::span<NodeId const>(added)));
  // Point a at c: a -> c -> a.
  g.set_input(Use{a.node, 0}, c);
  EXPECT_TRUE(closes_cycle(g, std::span<NodeId const>(added)));
}

// Two convolutions of one shape where the second reads the first: merging them into one
// grouped conv would read its own output. The rule does not offer it, and rewrite() refuses
// it when asked anyway (the check every rule gets, for ops a rule merges).
TEST(ClosesCycle, RewriteRefusesToMergeAConvWithItsReader) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto c1 = b.conv2d(x, 4, {3, 3});
  auto c2 = b.conv2d(c1, 4, {3, 3});
  auto g = std::move(b).build({c2});
  rules::MatchIndex<BuiltinOps> idx(g);
  char const* why = nullptr;
  bool found = false;
  rules::MergeParallelConvs::match<BuiltinOps>(idx, c1.node, [&](rules::Match const&) { found = true; }, &why);
  EXPECT_FALSE(found);
  ASSERT_NE(why, nullptr);
  EXPECT_STREQ(why, "one conv depends on the other");

  rules::Match m;
  m.nodes.assign({c1.node, c2.node});
  m.outputs.assign({c1, c2});
  std::string reason;
  EXPECT_FALSE(rules::rewrite(g, rules::MergeParallelConvs{}, m, {}, &reason).has_value());
  EXPECT_NE(reason.find("would close a cycle"), std::string::npos) << reason;
}

}  // namespace
}  // namespace autograph
