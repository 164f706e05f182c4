// apply_independent(): matches applied together equal the same rewrites applied one at a time,
// a match that touches an applied one is skipped, and a combination that would close a cycle
// is refused.
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/graph/structural_hash.hpp>
#include <autograph/graph/topological_order.hpp>
#include <autograph/graph/stats.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/rules/apply_independent.hpp>
#include <autograph/rules/default_engine.hpp>

namespace autograph::rules {
namespace {

using Engine = DefaultEngine;

std::vector<FoundMatch> matches_of(Engine const& e, Graph<> const& g, std::string_view rule) {
  std::vector<FoundMatch> out;
  for (auto const& f : e.find_matches(g))
    if (e.name(f.rule) == rule) out.push_back(f);
  return out;
}

}  // namespace

TEST(ApplyIndependent, AllBatchNormFoldsAtOnceEqualThemOneByOne) {
  auto g = models::build("inception_v3", {.resolution = 75});
  Engine engine;
  auto ms = matches_of(engine, g, "fold-conv-batchnorm");
  ASSERT_GE(ms.size(), 90u);  // every convolution of Inception-v3 is followed by a BatchNorm
  auto all = apply_independent(engine, g, std::span<FoundMatch const>(ms));
  EXPECT_EQ(all.applied.size(), ms.size());
  EXPECT_TRUE(matches_of(engine, all.graph, "fold-conv-batchnorm").empty());

  Graph<> one = g;
  for (auto m = matches_of(engine, one, "fold-conv-batchnorm"); !m.empty(); m = matches_of(engine, one, "fold-conv-batchnorm"))
    one = engine.apply(one, m.front())->graph;
  EXPECT_TRUE(structurally_equal(all.graph, one));
  EXPECT_NO_THROW(validate(all.graph));
}

TEST(ApplyIndependent, SkipsAMatchThatTouchesAnAppliedOne) {
  auto g = models::build("resnet50", {.resolution = 32});
  Engine engine;
  auto ms = matches_of(engine, g, "fold-conv-batchnorm");
  ASSERT_FALSE(ms.empty());
  std::vector<FoundMatch> twice{ms[0], ms[0]};
  auto r = apply_independent(engine, g, std::span<FoundMatch const>(twice));
  EXPECT_EQ(r.applied, (std::vector<std::size_t>{0}));
  EXPECT_NO_THROW(validate(r.graph));
  // The input graph is untouched.
  EXPECT_EQ(matches_of(engine, g, "fold-conv-batchnorm").size(), ms.size());
}

TEST(ApplyIndependent, RefusesMergesThatTogetherCloseACycle) {
  // NasNet's cells merge branches that feed each other's siblings: applying every
  // merge-parallel-convs match at once would close cycles; each is checked and refused.
  auto g = models::build("nasnet_a_mobile", {.resolution = 32});
  Engine engine;
  auto ms = matches_of(engine, g, "merge-parallel-convs");
  ASSERT_GT(ms.size(), 10u);
  auto r = apply_independent(engine, g, std::span<FoundMatch const>(ms));
  EXPECT_GT(r.applied.size(), 0u);
  EXPECT_NO_THROW(validate(r.graph));
  EXPECT_NO_THROW(topological_order(r.graph));
}

TEST(ApplyRebasing, FusesEveryLinkOfAChainWhereOnePassFusesEveryOther) {
  // conv -> relu -> conv -> relu -> conv -> relu: fusing a conv with its ReLU re-wires the
  // next conv's input, so apply_independent() skips that next fusion; apply_rebasing() finds
  // it again on the rewritten graph and takes it in a second pass.
  GraphBuilder b;
  Value y = b.input("x", {1, 4, 8, 8});
  for (int i = 0; i < 3; ++i) y = b.relu(b.conv2d(y, 4, {3, 3}));
  auto g = std::move(b).build({y});
  Engine engine;
  auto ms = matches_of(engine, g, "fuse-conv-relu");
  ASSERT_EQ(ms.size(), 3u);
  auto once = apply_independent(engine, g, std::span<FoundMatch const>(ms));
  EXPECT_EQ(once.applied.size(), 2u);  // the first and the last
  auto all = apply_rebasing(engine, g, std::span<FoundMatch const>(ms));
  ASSERT_EQ(all.applied.size(), 3u);
  auto order = all.applied;
  std::ranges::sort(order);
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_TRUE(matches_of(engine, all.graph, "fuse-conv-relu").empty());
  EXPECT_EQ(graph_stats(all.graph).operators, 3u);
  EXPECT_NO_THROW(validate(all.graph));
}

TEST(RuleEngine, MatchesOfOneRuleAreThatRulesShareOfAllMatches) {
  auto g = models::build("nasnet_a_mobile", {.resolution = 32});
  Engine engine;
  auto all = engine.find_matches(g);
  for (std::uint32_t r = 0; r < engine.size(); ++r) {
    std::vector<FoundMatch> expected;
    for (auto const& f : all)
      if (f.rule == r) expected.push_back(f);
    auto one = engine.find_matches(g, r);
    ASSERT_EQ(one.size(), expected.size()) << engine.name(r);
    for (std::size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(one[i].rule == r && one[i].match == expected[i].match) << engine.name(r);
  }
  EXPECT_THROW(engine.find_matches(g, static_cast<std::uint32_t>(engine.size())), Error);
}

}  // namespace autograph::rules
