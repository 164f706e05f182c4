// The matcher: every mapping, shared variables, commutative operands, symmetry breaking, the
// hyper-edge rule, cycle rejection, the type index, and reasons for failed matches.
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/rules/library/elementwise.hpp>
#include <autograph/rules/library/fusion.hpp>
#include <autograph/rules/library/grouped_conv.hpp>
#include <autograph/rules/library/merge.hpp>
#include <autograph/rules/rule.hpp>

namespace autograph::rules {
namespace matcher_test {

template <class R>
std::vector<Match> matches_of(Graph<> const& g, R const& rule = {}) {
  MatchIndex<> idx(g);
  std::vector<Match> out;
  for_each_match(rule, idx, [&](Match const& m) { out.push_back(m); });
  return out;
}

/// x * sigmoid(x): a variable used twice.
struct SwishPattern : PatternRule<SwishPattern> {
  static constexpr std::string_view name = "test-swish";
  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var x = p.var();
    auto s = p.op(is<Sigmoid>, {x});
    auto m = p.op(is<Mul>, {x, s}).commutative();
    p.output(m);
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    return {rw.add(Identity{}, {m.var(0)})};
  }
};

static_assert(Rule<SwishPattern, BuiltinOps> && Rule<FuseConvRelu, BuiltinOps> && Rule<MergeAllSiblingOps, BuiltinOps>);
static_assert(!VerifiableRule<SwishPattern, BuiltinOps> && VerifiableRule<FuseConvRelu, BuiltinOps>);

TEST(Matcher, SharedVariableMustBeOneValue) {
  GraphBuilder b;
  auto x = b.input("x", {2, 3}), y = b.input("y", {2, 3});
  auto good = b.mul(b.sigmoid(x), x);   // operands swapped: commutative
  auto bad = b.mul(b.sigmoid(x), y);    // x and y differ
  auto g = std::move(b).build({good, bad});
  auto ms = matches_of<SwishPattern>(g);
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0].outputs[0], good);
  EXPECT_EQ(ms[0].var(0), x);
  EXPECT_EQ(explain(SwishPattern{}, g, bad.node), "a variable used twice is bound to two different values");
}

TEST(Matcher, FindsEveryMappingOnceForInterchangeableSiblings) {
  GraphBuilder b;
  auto x = b.input("x", {2, 8});
  std::vector<Value> outs;
  for (int i = 0; i < 4; ++i) outs.push_back(b.linear(x, 3 + i, false));
  auto g = std::move(b).build(outs);
  EXPECT_EQ(matches_of<MergeSiblingOps>(g).size(), 6u);  // C(4, 2) unordered pairs
  auto all = matches_of<MergeAllSiblingOps>(g);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].nodes.size(), 4u);
}

TEST(Matcher, HyperEdgeRuleRejectsALiveIntermediate) {
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 8, 8});
  auto conv = b.conv2d(x, 4, {3, 3});
  auto relu = b.relu(conv);
  auto g = std::move(b).build({relu, b.sigmoid(conv)});  // conv is also read by sigmoid
  EXPECT_TRUE(matches_of<FuseConvRelu>(g).empty());
  EXPECT_EQ(explain(FuseConvRelu{}, g, relu.node), "a matched intermediate value is read outside the match");

  GraphBuilder b2;
  auto x2 = b2.input("x", {1, 3, 8, 8});
  auto conv2 = b2.conv2d(x2, 4, {3, 3});
  auto g2 = std::move(b2).build({b2.relu(conv2), conv2});  // conv is a graph output
  EXPECT_EQ(explain(FuseConvRelu{}, g2, g2.outputs()[0].node), "a matched intermediate value is a graph output");
}

TEST(Matcher, RejectsARewriteThatWouldCreateACycle) {
  // Two parallel convs where the second reads (through a relu) the first's output: merging them
  // would make the merged conv read its own output.
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 6, 6});
  auto c1 = b.conv2d(x, 4, {3, 3});
  auto c2 = b.conv2d(b.relu(c1), 4, {3, 3});
  auto c3 = b.conv2d(b.input("y", {1, 4, 6, 6}), 4, {3, 3});
  auto g = std::move(b).build({c2, c3});
  auto ms = matches_of<MergeParallelConvs>(g);
  // c1-c3 and c2-c3 merge; c1-c2 would close a loop.
  ASSERT_EQ(ms.size(), 2u);
  for (auto const& m : ms) EXPECT_FALSE(m.contains(c1.node) && m.contains(c2.node));
  char const* why = nullptr;
  MatchIndex<> idx(g);
  MergeParallelConvs::match<BuiltinOps>(idx, c1.node, [](Match const&) {}, &why);
  ASSERT_NE(why, nullptr);
  // The rule sees it before the generic check does (which also catches a conv that reads the
  // other directly: test/graph/closes_cycle_test.cpp).
  EXPECT_STREQ(why, "one conv depends on the other");
}

TEST(Matcher, StartsFromTheTypeIndexAndSkipsWeightOnlyRoots) {
  GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto w = b.add(b.weight("a", {2, 3}), b.weight("b", {2, 3}));  // a constant subexpression
  auto g = std::move(b).build({b.add(x, w)});
  MatchIndex<> idx(g);
  EXPECT_EQ(idx.nodes_of(AnyOp::type_id_of<Add>()).size(), 2u);
  EXPECT_TRUE(idx.nodes_of(AnyOp::type_id_of<Conv2D>()).empty());
  EXPECT_TRUE(idx.weight_only(w.node));
  EXPECT_TRUE(is_weight_only(g, w.node));
  EXPECT_FALSE(is_weight_only(g, g.outputs()[0].node));
  EXPECT_EQ(matches_of<CommuteAdd>(g).size(), 1u);  // only x + w; the weight-only add is a constant
  EXPECT_EQ(weight_only_nodes(g)[w.node], 1);
}

TEST(Matcher, ExplainNamesTheFailedConstraint) {
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 8, 8});
  auto r = b.relu(b.conv2d(x, 4, {3, 3}, {.act = Activation::tanh}));
  auto g = std::move(b).build({r});
  EXPECT_EQ(explain(FuseConvRelu{}, g, r.node), "the op already applies an activation");
  EXPECT_NE(explain(FuseConvRelu{}, g, x.node).find("does not start at Input"), std::string::npos);
}

TEST(Pattern, RejectsMalformedPatterns) {
  PatternBuilder<BuiltinOps> p;
  Var x = p.var();
  p.var();  // never read
  p.output(p.op(is<Relu>, {x}));
  EXPECT_THROW(std::move(p).build(), Error);
  PatternBuilder<BuiltinOps> q;
  Var y = q.var();
  q.op(is<Relu>, {y});
  EXPECT_THROW(std::move(q).build(), Error);  // no output
  PatternBuilder<BuiltinOps> r;
  EXPECT_THROW(r.op(is<Relu>, {Var(3)}), Error);  // reads an undeclared variable
}

}  // namespace matcher_test
}  // namespace autograph::rules
