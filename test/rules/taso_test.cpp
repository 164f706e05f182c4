// TASO's rule collection loaded as runtime rules: the count, numerical verification of every
// rule, the two loader decisions (kernel sizes, grouped targets) both ways, split sizes derived
// from matched shapes, TASO's no-broadcasting elementwise ops, and the engine over both kinds.
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/rules/default_engine.hpp>
#include <autograph/rules/default_verification.hpp>
#include <autograph/rules/taso_loader.hpp>
#include <autograph/rules/verify.hpp>

#include <filesystem>

namespace autograph::rules {
namespace taso_test {

std::filesystem::path taso_file() { return std::filesystem::path(AUTOGRAPH_SHARED_DIR) / "data/taso/graph_subst.pb"; }

#define REQUIRE_TASO_FILE()                                                                                \
  if (!std::filesystem::exists(taso_file())) GTEST_SKIP() << "TASO's rule file is not at " << taso_file() \
                                                          << " (../shared is absent): skipping"

std::vector<TasoRule<>> const& taso_rules() {
  static auto const rules = load_taso_rules(taso_file());
  return rules;
}
TasoRule<> const& taso(std::size_t i) { return taso_rules().at(i); }

std::vector<Match> matches_of(TasoRule<> const& rule, Graph<> const& g) {
  MatchIndex<> idx(g);
  std::vector<Match> out;
  for_each_match(rule, idx, [&](Match const& m) { out.push_back(m); });
  return out;
}

void expect_equivalent(Graph<> const& a, Graph<> const& b) {
  auto c = compare_graphs(a, b, 1e-4, 3);
  EXPECT_TRUE(c.passed) << c.why;
}

TEST(Taso, LoadsAllRulesOfTheCollection) {
  REQUIRE_TASO_FILE();
  ASSERT_EQ(taso_rules().size(), 133u);
  EXPECT_EQ(taso(0).name(), "taso-000");
  EXPECT_EQ(taso(64).describe(), "conv2d(v7, v10); relu(op0) => conv2d(v7, v10)[act 2]");
  static_assert(Rule<TasoRule<>, BuiltinOps> && VerifiableRule<TasoRule<>, BuiltinOps>);
}

TEST(Taso, EveryRuleVerifiesNumericallyWithGroupsAligned) {
  REQUIRE_TASO_FILE();
  auto results = verify_rules<BuiltinOps>(std::span<TasoRule<> const>(taso_rules()), {.trials = 3});
  for (auto const& r : results) EXPECT_EQ(r.verdict, Verdict::verified) << to_string(r);
}

TEST(Taso, GroupedTargetsAreWrongWhenConcatJoinsMissGroupBoundaries) {
  REQUIRE_TASO_FILE();
  // As TASO applies them, rules 99/100/130/131 turn concat(conv(x1, w1), conv(x2, w2)) into one
  // grouped conv, which is wrong when w1 and w2 have different output channels.
  auto raw = load_taso_rules(taso_file(), {.aligned_groups = false});
  for (std::size_t i : {99u, 100u, 130u, 131u}) {
    auto r = verify_rule<BuiltinOps>(raw[i], {.trials = 6});
    EXPECT_EQ(r.verdict, Verdict::failed) << to_string(r);
  }
  GraphBuilder b;
  auto x1 = b.input("x1", {1, 3, 5, 5}), x2 = b.input("x2", {1, 3, 5, 5});
  auto g = std::move(b).build({b.concat({b.conv2d(x1, 2, {3, 3}), b.conv2d(x2, 4, {3, 3})})});
  auto ms = matches_of(taso(99), g);
  ASSERT_EQ(ms.size(), 1u);
  std::string why;
  EXPECT_FALSE(rewrite(g, taso(99), ms[0], {}, &why));
  EXPECT_NE(why.find("aligned_groups"), std::string::npos) << why;
  EXPECT_TRUE(rewrite(g, raw[99], ms[0]));  // TASO's behaviour: applies, and is wrong
}

TEST(Taso, FiresOnAnyKernelSizeUnlessTold) {
  REQUIRE_TASO_FILE();
  auto strict = load_taso_rules(taso_file(), {.any_kernel_size = false});
  for (std::int64_t k : {1, 3, 5}) {
    GraphBuilder b;
    auto x = b.input("x", {1, 2, 6, 6});
    auto g = std::move(b).build({b.relu(b.conv2d(x, 4, {k, k}))});
    EXPECT_EQ(matches_of(taso(64), g).size(), 1u) << k;
    EXPECT_EQ(matches_of(strict[64], g).size(), k == 3 ? 1u : 0u) << k;
    if (k != 3) {
      EXPECT_EQ(explain(strict[64], g, g.outputs()[0].node), "the kernel size differs from the rule's (any_kernel_size is off)");
    }
    fill_random_weights(g, 1);
    auto r = rewrite(g, taso(64), matches_of(taso(64), g)[0]);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->graph[r->graph.outputs()[0].node].get_if<Conv2D>()->act, Activation::relu);
    expect_equivalent(g, r->graph);
  }
  // Stride and padding mode are constraints: a valid-padded conv does not match.
  GraphBuilder b;
  auto x = b.input("x", {1, 2, 6, 6});
  auto g = std::move(b).build({b.relu(b.conv2d(x, 4, {3, 3}, {.pad = std::array<std::int64_t, 4>{0, 0, 0, 0}}))});
  EXPECT_TRUE(matches_of(taso(64), g).empty());
}

TEST(Taso, DerivesSplitSizesFromMatchedShapes) {
  REQUIRE_TASO_FILE();
  // Rule 127: conv(x, w1), conv(x, w2) => split(conv(x, concat(w1, w2))) along channels.
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 6, 6});
  auto y1 = b.conv2d(x, 3, {3, 3}), y2 = b.conv2d(x, 5, {3, 3});
  auto g = std::move(b).build({b.relu(y1), b.sigmoid(y2)});
  fill_random_weights(g, 2);
  auto ms = matches_of(taso(127), g);
  ASSERT_EQ(ms.size(), 2u);  // both orders, as TASO enumerates them
  for (auto const& m : ms) {
    auto r = rewrite(g, taso(127), m);
    ASSERT_TRUE(r);
    validate(r->graph);
    std::optional<Split> split;
    for (NodeId id : r->graph.node_ids())
      if (auto const* s = r->graph[id].get_if<Split>()) split = *s;
    ASSERT_TRUE(split);
    EXPECT_EQ(split->axis, 1);
    auto const& first = g[m.node(0)].outputs[0].shape[1];
    EXPECT_EQ(split->sizes, (std::vector<std::int64_t>{first, 8 - first}));
    expect_equivalent(g, r->graph);
  }
}

TEST(Taso, ElementwiseOpsDoNotBroadcast) {
  REQUIRE_TASO_FILE();
  // Rule 24: (v1 + v2) + v3 => v2 + (v1 + v3).
  GraphBuilder b;
  auto v1 = b.input("v1", {2, 3}), v2 = b.input("v2", {2, 3}), v3 = b.input("v3", {2, 3}), bias = b.input("b", {3});
  auto g = std::move(b).build({b.add(v3, b.add(v1, v2)), b.add(v3, b.add(v1, bias))});
  auto ms = matches_of(taso(24), g);
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0].outputs[0], g.outputs()[0]);
}

TEST(Taso, EngineNumbersBuiltInThenTasoRules) {
  REQUIRE_TASO_FILE();
  DefaultEngine engine(load_taso_rules(taso_file()));
  EXPECT_EQ(engine.size(), Default::size + 133);
  EXPECT_EQ(engine.name(Default::size + 64), "taso-064");
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 8, 8});
  auto g = std::move(b).build({b.relu(b.conv2d(x, 4, {3, 3}))});
  fill_random_weights(g, 3);
  std::size_t built_in = 0, from_taso = 0;
  for (auto const& f : engine.find_matches(g)) {
    auto r = engine.apply(g, f);
    ASSERT_TRUE(r) << engine.name(f.rule);
    expect_equivalent(g, r->graph);
    (f.rule < Default::size ? built_in : from_taso)++;
  }
  EXPECT_EQ(built_in, 1u);   // fuse-conv-relu
  EXPECT_EQ(from_taso, 1u);  // taso-064, the same fusion
}

TEST(Taso, RejectsBadInput) {
  EXPECT_THROW(parse_taso_rules("not a protobuf \x01\x02"), Error);
  EXPECT_THROW(load_taso_rules("/nonexistent/graph_subst.pb"), Error);
  TasoRuleData pool;  // pool2d_avg is not mapped
  pool.src.push_back({7, {{-1, 0}}, {}});
  pool.dst.push_back({8, {{-1, 0}}, {}});
  pool.mapped.push_back({0, 0, 0, 0});
  try {
    TasoRule<> r("taso-x", pool);
    FAIL() << "an unsupported op type was accepted";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("taso-x"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("type 7"), std::string::npos);
  }
}

}  // namespace taso_test
}  // namespace autograph::rules
