// The rule DSL: sources compile to the same Pattern a hand-written PatternBuilder gives, targets
// build in post-order, bindings are typed, and a target reading an unbound variable is refused
// at compile time.
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/rules/expr.hpp>
#include <autograph/rules/library/elementwise.hpp>

namespace autograph::rules {
namespace {

using namespace dsl;

template <class R>
std::vector<Match> matches_of(Graph<> const& g) {
  MatchIndex<> idx(g);
  std::vector<Match> out;
  for_each_match(R{}, idx, [&](Match const& m) { out.push_back(m); });
  return out;
}

/// x * sigmoid(x) => swish-like identity, to test a variable read twice.
struct Swish : Rewrite<Swish, "test-swish"> {
  static constexpr auto from = mul(x, op<Sigmoid>(x)).commutative();
  static constexpr auto to = op<Identity>(x);
};
/// The target reads c, which the source never binds.
struct ReadsUnbound {
  static constexpr auto from = add(a, b);
  static constexpr auto to = add(a, c);
};
// The negative compile check: using ReadsUnbound as a Rewrite fails with "the target reads a
// variable the source does not bind" (static_assert in Rewrite::apply); the trait says so here.
static_assert(!binds_target_vars<ReadsUnbound>);
static_assert(binds_target_vars<FactorMulOverAdd> && binds_target_vars<Swish>);
static_assert(Rule<FactorMulOverAdd, BuiltinOps> && VerifiableRule<FactorMulOverAdd, BuiltinOps> && !VerifiableRule<Swish, BuiltinOps>);

// Typed bindings: a node binds its operator type, a variable a Value.
using FactorBindings = Bindings<std::remove_cvref_t<decltype(FactorMulOverAdd::from)>, BuiltinOps>;
static_assert(std::is_same_v<decltype(std::declval<FactorBindings>()[mul(a, b).commutative()]), Mul const&>);
static_assert(std::is_same_v<decltype(std::declval<FactorBindings>()[a]), Value>);

TEST(Dsl, SourceCompilesToTheHandWrittenPattern) {
  PatternBuilder<BuiltinOps> p;
  Var va = p.var(), vb = p.var(), vc = p.var();
  auto ab = p.op(is<Mul>, {va, vb}).commutative();
  auto ac = p.op(is<Mul>, {va, vc}).commutative();
  p.output(p.op(is<Add>, {ab, ac}));
  auto hand = std::move(p).build();
  auto const& dsl = FactorMulOverAdd::pattern<BuiltinOps>();
  ASSERT_EQ(dsl.nodes.size(), hand.nodes.size());
  EXPECT_EQ(dsl.num_vars, hand.num_vars);
  for (std::size_t i = 0; i < hand.nodes.size(); ++i) {
    EXPECT_EQ(dsl.nodes[i].types[0], hand.nodes[i].types[0]) << i;
    EXPECT_EQ(dsl.nodes[i].inputs, hand.nodes[i].inputs) << i;
    EXPECT_EQ(dsl.nodes[i].commutative, hand.nodes[i].commutative) << i;
  }
  EXPECT_EQ(dsl.outputs, hand.outputs);
  EXPECT_EQ(dsl.root, hand.root);
}

TEST(Dsl, IdenticalSubexpressionsAreOneNode) {
  constexpr auto e = add(op<Relu>(x), mul(op<Relu>(x), y));
  using E = std::remove_cvref_t<decltype(e)>;
  static_assert(detail::num_nodes<E> == 3);  // relu, mul, add
  static_assert(detail::num_vars<E> == 2);
  static_assert(detail::position_in<E, E> == 2);  // the root is last in post-order
}

TEST(Dsl, AVariableReadTwiceIsOneValue) {
  GraphBuilder<> b;
  auto x = b.input("x", {4}), y = b.input("y", {4});
  auto g = std::move(b).build({b.mul(b.sigmoid(x), x), b.mul(b.sigmoid(y), x)});
  auto ms = matches_of<Swish>(g);
  ASSERT_EQ(ms.size(), 1u);  // sigmoid(y) * x reads two values
  EXPECT_EQ(ms[0].var(0), x);
}

TEST(Dsl, WholeMatchChecksExplainThemselves) {
  GraphBuilder<> b;
  auto x = b.input("x", {4});
  auto g = std::move(b).build({b.add(x, x)});
  EXPECT_EQ(explain(CommuteAdd{}, g, g.outputs()[0].node), "both operands are one value");
}

TEST(Dsl, TargetBuildsInPostOrderNamedAfterTheRoot) {
  GraphBuilder<> b;
  auto p = b.input("p", {3}), q = b.input("q", {3}), r = b.input("r", {3});
  Value s = b.add(b.mul(p, q), b.mul(p, r));
  auto g = std::move(b).build({s});
  auto ms = matches_of<FactorMulOverAdd>(g);
  ASSERT_EQ(ms.size(), 1u);
  auto out = rewrite(g, FactorMulOverAdd{}, ms[0]);
  ASSERT_TRUE(out);
  auto const& h = out->graph;
  Value root = h.outputs()[0];
  ASSERT_NE(h[root.node].op.get_if<Mul>(), nullptr);
  EXPECT_EQ(h[root.node].name, g[s.node].name + "/factor-mul-over-add");
  EXPECT_EQ(h[root.node].inputs[0], p);
  Value sum = h[root.node].inputs[1];
  ASSERT_NE(h[sum.node].op.get_if<Add>(), nullptr);
  EXPECT_EQ(h[sum.node].name, h[root.node].name + ".0");
  EXPECT_EQ(h[sum.node].inputs[0], q);
  EXPECT_EQ(h[sum.node].inputs[1], r);
}

/// Relu or Sigmoid: an operator class, as ChannelMergeable ops are computed from the set.
struct ReluOrSigmoid {
  using op_class_tag = void;
  static constexpr std::string_view label = "ReluOrSigmoid";
  template <class Set>
  static std::span<void const* const> types() {
    static void const* const t[] = {AnyOp::type_id_of<Relu>(), AnyOp::type_id_of<Sigmoid>()};
    return t;
  }
};
struct DoubleActivation : Rewrite<DoubleActivation, "test-double-activation"> {
  static constexpr auto act = op<ReluOrSigmoid>(x);
  static constexpr auto from = add(act, act);
  static constexpr auto to = act.with(x);
};
using ClassBindings = Bindings<std::remove_cvref_t<decltype(DoubleActivation::from)>, BuiltinOps>;
static_assert(std::is_same_v<decltype(std::declval<ClassBindings>()[DoubleActivation::act]), AnyOp const&>);

TEST(Dsl, AnOperatorClassNodeMatchesEachOfItsTypes) {
  auto const& pat = DoubleActivation::pattern<BuiltinOps>();
  EXPECT_EQ(pat.nodes[0].types.size(), 2u);
  GraphBuilder<> b;
  auto x = b.input("x", {4});
  Value r = b.relu(x), s = b.sigmoid(x), t = b.tanh(x);
  auto g = std::move(b).build({b.add(r, r), b.add(s, s), b.add(t, t)});
  auto ms = matches_of<DoubleActivation>(g);
  ASSERT_EQ(ms.size(), 2u);  // not tanh
  auto m = ClassBindings(g, ms[1]);
  EXPECT_EQ(m[DoubleActivation::act].type_id(), AnyOp::type_id_of<Sigmoid>());
}

}  // namespace
}  // namespace autograph::rules
