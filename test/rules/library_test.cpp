// The built-in rule library: every rule verified numerically on random examples, a wrong rule
// caught by the checker, and claims about what the important rewrites build.
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/rules/default_engine.hpp>
#include <autograph/rules/default_verification.hpp>
#include <autograph/rules/verify.hpp>

#include <random>
#include <set>
#include "testing/graph_queries.hpp"

namespace autograph::rules {
namespace {
using autograph::testing::count_ops;

/// Applies the first match of `R` and returns the rewritten graph.
template <class R>
Graph<> rewrite_first(Graph<> const& g) {
  MatchIndex<> idx(g);
  std::optional<Match> first;
  for_each_match(R{}, idx, [&](Match const& m) {
    if (!first) first = m;
  });
  if (!first) throw Error("no match of " + std::string(R::name));
  std::string why;
  auto r = rewrite(g, R{}, *first, {.fold = fold_with_reference}, &why);
  if (!r) throw Error(why);
  validate(r->graph);
  return std::move(r->graph);
}

/// Source and rewritten graph agree on random inputs (both filled with the same weights).
void expect_equivalent(Graph<> const& a, Graph<> const& b) {
  auto c = compare_graphs(a, b, 1e-4, 11);
  EXPECT_TRUE(c.passed) << c.why;
}

template <class... Rs>
std::vector<std::string_view> names(Rules<Rs...>) {
  return {Rs::name...};
}

TEST(Library, EveryBuiltInRuleVerifiesNumerically) {
  auto results = verify_rules<BuiltinOps>(Default{}, {.trials = 4});
  ASSERT_EQ(results.size(), Default::size);
  for (auto const& r : results) {
    EXPECT_EQ(r.verdict, Verdict::verified) << to_string(r);
    EXPECT_GE(r.checks, 4) << r.rule;
  }
}

TEST(Library, NamesAreUniqueAndKebabCase) {
  auto ns = names(Default{});
  EXPECT_GE(ns.size(), 35u);
  std::set<std::string_view> unique(ns.begin(), ns.end());
  EXPECT_EQ(unique.size(), ns.size());
  for (auto n : ns)
    EXPECT_TRUE(std::ranges::all_of(n, [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; })) << n;
}

/// relu(conv) => conv with a sigmoid: plausible-looking and wrong.
struct WrongFusion : FuseActivation<"wrong-fusion", Conv2D, Relu> {
  static constexpr std::string_view name = "wrong-fusion";
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& n = rw.graph()[m.node(0)];
    Conv2D c = *n.template get_if<Conv2D>();
    c.act = Activation::sigmoid;
    return {rw.add(c, n.inputs)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    return RuleExample<FuseConvRelu>::make<Set>(rng);
  }
};
/// Merges siblings but hands their outputs back swapped (shapes agree when channels do).
struct SwappedMerge : MergeSiblingOps {
  static constexpr std::string_view name = "swapped-merge";
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    Target t = MergeSiblingOps::apply(rw, m);
    std::swap(t.values[0], t.values[1]);
    return t;
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64&) {
    GraphBuilder<Set> b;
    auto x = b.input("x", {2, 4});
    return std::move(b).build({b.linear(x, 3, false), b.linear(x, 3, false)});
  }
};

TEST(Verify, CatchesAWrongRule) {
  auto r = verify_rule<BuiltinOps>(WrongFusion{});
  EXPECT_EQ(r.verdict, Verdict::failed);
  EXPECT_NE(r.reason.find("differs after rewriting"), std::string::npos) << r.reason;
  auto s = verify_rule<BuiltinOps>(SwappedMerge{});
  EXPECT_EQ(s.verdict, Verdict::failed) << to_string(s);
}

TEST(Library, MergesBertQkvIntoOneMatMul) {
  GraphBuilder b;
  auto x = b.input("x", {2, 5, 16});
  auto q = b.linear(x, 16, false), k = b.linear(x, 16, false), v = b.linear(x, 16, false);
  auto g = std::move(b).build({b.matmul(q, b.transpose(k, {0, 2, 1})), v});
  fill_random_weights(g, 2);
  auto r = rewrite_first<MergeAllSiblingOps>(g);
  EXPECT_EQ(count_ops(r, "MatMul"), 2u);  // the merged projection and q k^T
  EXPECT_EQ(count_ops(r, "Split"), 1u);
  EXPECT_EQ(count_ops(r, "Concat"), 0u);  // folded
  expect_equivalent(g, r);
}

TEST(Library, RegroupingBuildsTheBlockDiagonalWeight) {
  GraphBuilder b;
  auto x = b.input("x", {1, 32 * 2, 5, 5});
  auto g = std::move(b).build({b.conv2d(x, 32 * 2, {3, 3}, {.groups = 32})});
  fill_random_weights(g, 4);
  auto r = rewrite_first<RegroupConvBy4>(g);  // 32 groups -> 8
  NodeId conv = r.outputs()[0].node;
  EXPECT_EQ(r[conv].get_if<Conv2D>()->groups, 8);
  auto const& w = *r[r[conv].inputs[1].node].get_if<Weight>();
  auto const& w0 = *g[g[g.outputs()[0].node].inputs[1].node].get_if<Weight>();
  ASSERT_EQ(w.desc.shape, (Shape{64, 8, 3, 3}));  // [K, 4 * Cg, R, S]
  // Output channel k (old group k / 2) sees input block (k / 2) % 4 only, with the old kernel.
  for (std::int64_t k = 0; k < 64; ++k)
    for (std::int64_t c = 0; c < 8; ++c)
      for (std::int64_t i = 0; i < 9; ++i) {
        float got = (*w.data)[static_cast<std::size_t>((k * 8 + c) * 9 + i)];
        float want = c / 2 == (k / 2) % 4 ? (*w0.data)[static_cast<std::size_t>((k * 2 + c % 2) * 9 + i)] : 0.f;
        ASSERT_EQ(got, want) << "k " << k << " c " << c;
      }
  expect_equivalent(g, r);
}

TEST(Library, ParallelConvsBecomeOneGroupedConv) {
  GraphBuilder b;
  std::vector<Value> ys;
  for (int i = 0; i < 4; ++i) ys.push_back(b.conv2d(b.input("x" + std::to_string(i), {1, 4, 6, 6}), 4, {3, 3}, {.groups = 2}));
  auto g = std::move(b).build({b.concat(ys)});
  fill_random_weights(g, 5);
  auto r = rewrite_first<ConcatConvsToGroupedConv>(g);
  EXPECT_EQ(count_ops(r, "Conv2D"), 1u);
  EXPECT_EQ(r[r.outputs()[0].node].get_if<Conv2D>()->groups, 8);
  expect_equivalent(g, r);
}

TEST(Library, BatchNormFoldHonoursEpsilon) {
  for (float eps : {1e-5f, 0.5f, 4.f}) {
    GraphBuilder b;
    auto x = b.input("x", {2, 3, 5, 5});
    auto g = std::move(b).build({b.batch_norm(b.conv2d(x, 4, {3, 3}, {.bias = true}), eps)});
    fill_random_weights(g, 6);
    auto r = rewrite_first<FoldConvBatchNorm>(g);
    EXPECT_EQ(count_ops(r, "BatchNorm"), 0u);
    expect_equivalent(g, r);
  }
}

TEST(Library, EnlargesKernelsAndAdjustsPadding) {
  GraphBuilder b;
  auto x = b.input("x", {1, 2, 7, 7});
  auto g = std::move(b).build({b.conv2d(x, 3, {1, 3}, {.stride = {2, 2}})});
  fill_random_weights(g, 8);
  auto r = rewrite_first<EnlargeConvKernel>(g);
  auto const& c = *r[r.outputs()[0].node].get_if<Conv2D>();
  EXPECT_EQ(c.pad, (std::array<std::int64_t, 4>{1, 1, 1, 1}));
  EXPECT_EQ(r.desc(r[r.outputs()[0].node].inputs[1]).shape, (Shape{3, 2, 3, 3}));
  expect_equivalent(g, r);
}

TEST(Library, SruGateLosesAMultiply) {
  GraphBuilder b;
  auto x = b.sigmoid(b.input("x", {4, 8})), y = b.input("y", {4, 8}), z = b.input("z", {4, 8});
  auto g = std::move(b).build({b.add(b.mul(x, y), b.mul(b.scale(x, -1.f, 1.f), z))});
  auto r = rewrite_first<SimplifySruGate>(g);
  EXPECT_EQ(count_ops(r, "Mul"), 1u);
  EXPECT_EQ(count_ops(r, "Scale"), 0u);
  EXPECT_EQ(count_ops(r, "Sub"), 1u);
  expect_equivalent(g, r);
}

TEST(Library, ConvBiasAddBecomesTheConvBias) {
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 6, 6});
  auto g = std::move(b).build({b.add(b.weight("c", {1, 5, 1, 1}, WeightInit::uniform), b.conv2d(x, 5, {3, 3}))});
  fill_random_weights(g, 9);
  auto r = rewrite_first<FoldConvBias>(g);
  EXPECT_EQ(count_ops(r, "Add"), 0u);
  EXPECT_EQ(r[r.outputs()[0].node].inputs.size(), 3u);
  expect_equivalent(g, r);
}

TEST(Engine, NumbersTypedRulesAndFindsAllMatches) {
  DefaultEngine engine;
  EXPECT_EQ(engine.size(), Default::size);
  EXPECT_EQ(engine.name(0), "fuse-conv-relu");
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 8, 8});
  auto g = std::move(b).build({b.relu(b.conv2d(x, 4, {1, 1}))});
  auto found = engine.find_matches(g);
  std::set<std::string_view> fired;
  for (auto const& f : found) {
    fired.insert(engine.name(f.rule));
    auto r = engine.apply(g, f);
    ASSERT_TRUE(r) << engine.name(f.rule);
    validate(r->graph);
  }
  EXPECT_EQ(fired, (std::set<std::string_view>{"fuse-conv-relu", "enlarge-conv-kernel"}));
}

}  // namespace
}  // namespace autograph::rules
