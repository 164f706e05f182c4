// The pattern generator: explicit patterns (Collage's Method 1) and pattern rules (Method 2)
// on small graphs, convexity, can_run(), and the groups it finds on ResNet-50 and NASNet-A.
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/placement/pattern_generator.hpp>

#include "placement/test_backends.hpp"

namespace autograph::placement {
namespace {

using testing::ChainBackend;
using testing::FusingBackend;
using testing::PerOpBackend;

static_assert(Backend<FusingBackend> && Backend<PerOpBackend>);
static_assert(!Backend<int> && !Backend<NodeGroup>);

/// The groups a registry yields, as sorted node lists per backend name.
std::set<std::pair<std::string, std::vector<NodeId>>> groups_of(Graph<> const& g, BackendRegistry<BuiltinOps> const& reg) {
  GraphFacts<BuiltinOps> facts(g);
  std::set<std::pair<std::string, std::vector<NodeId>>> r;
  for (auto const& c : generate_candidates(facts, reg).candidates) r.insert({reg[c.backend].name, c.group.nodes});
  return r;
}

using testing::Chain;

TEST(PatternGenerator, RuleGrowsEveryPrefixOfAConvChain) {
  Chain c;
  auto found = groups_of(c.g, Backends<FusingBackend>::registry<BuiltinOps>());
  std::set<std::pair<std::string, std::vector<NodeId>>> want{
      {"fusing", {c.conv}}, {"fusing", {c.conv, c.relu}}, {"fusing", {c.conv, c.relu, c.add}}, {"fusing", {c.conv, c.relu, c.add, c.sig}}};
  EXPECT_EQ(found, want);
}

TEST(PatternGenerator, ElementwiseRuleFindsEveryConnectedRun) {
  Chain c;
  auto found = groups_of(c.g, Backends<ChainBackend>::registry<BuiltinOps>());
  std::set<std::pair<std::string, std::vector<NodeId>>> want{{"chains", {c.relu}},          {"chains", {c.add}},
                                                             {"chains", {c.sig}},           {"chains", {c.relu, c.add}},
                                                             {"chains", {c.add, c.sig}},    {"chains", {c.relu, c.add, c.sig}}};
  EXPECT_EQ(found, want);
}

TEST(PatternGenerator, AValueReadOutsideEndsTheFusedGroup) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto c = b.conv2d(x, 4, {3, 3});
  auto r = b.relu(c);
  auto g = std::move(b).build({r, c});  // the conv's output is a graph output too
  auto found = groups_of(g, Backends<FusingBackend>::registry<BuiltinOps>());
  EXPECT_EQ(found, (std::set<std::pair<std::string, std::vector<NodeId>>>{{"fusing", {c.node}}}));
}

TEST(PatternGenerator, NonConvexGroupsAreNeverProduced) {
  // a -> b -> c and a -> c: {a, c} would run c's kernel before b's, which reads a and feeds c.
  GraphBuilder b;
  auto x = b.input("x", {8});
  auto a = b.relu(x);
  auto mid = b.sigmoid(a);
  auto c = b.add(a, mid);
  auto g = std::move(b).build({c});
  BackendRegistry<BuiltinOps> reg;
  BackendSpec<BuiltinOps> spec;
  spec.add(PatternRule<BuiltinOps>{.name = "any-connected",
                                   .valid_op = [](Graph<> const&, NodeId) { return true; },
                                   .fusion = [](Graph<> const&, std::span<NodeId const>) { return true; }});
  reg.push_back({"any", spec, [](Graph<> const&, NodeGroup const&) { return rules::ok; }});
  auto found = groups_of(g, reg);
  EXPECT_FALSE(found.contains({"any", {a.node, c.node}}));
  EXPECT_TRUE(found.contains({"any", {a.node, mid.node, c.node}}));
  EXPECT_TRUE(found.contains({"any", {a.node, mid.node}}));
  EXPECT_EQ(found.size(), 6u);  // 3 singletons, {a,mid}, {mid,c}, {a,mid,c}
}

TEST(PatternGenerator, ExplicitPatternMatchesConvAddRelu) {
  // Collage's Listing 1, lines 5-8: conv2d + add + relu.
  PatternBuilder<BuiltinOps> p;
  Var x = p.var(), w = p.var(), y = p.var();
  auto conv = p.op(is<Conv2D>, {x, w}).extra_inputs().when([](Conv2D const& c) { return c.groups == 1; });
  auto add = p.op(is<Add>, {conv, y}).commutative();
  p.output(p.op(is<Relu>, {add}));
  BackendSpec<BuiltinOps> spec;
  spec.add("conv-add-relu", std::move(p).build());
  BackendRegistry<BuiltinOps> reg{{"cudnn-like", spec, [](Graph<> const&, NodeGroup const&) { return rules::ok; }}};

  GraphBuilder b;
  auto in = b.input("x", {1, 4, 8, 8}), skip = b.input("s", {1, 4, 8, 8});
  auto c1 = b.conv2d(in, 4, {3, 3});
  auto a1 = b.add(skip, c1);  // operands swapped
  auto r1 = b.relu(a1);
  auto c2 = b.conv2d(r1, 4, {3, 3}, {.groups = 4});  // grouped: the attribute constraint refuses it
  auto r2 = b.relu(b.add(c2, skip));
  auto g = std::move(b).build({r2});
  GraphFacts<BuiltinOps> facts(g);
  auto gen = generate_candidates(facts, reg);
  ASSERT_EQ(gen.candidates.size(), 1u);
  EXPECT_EQ(gen.candidates[0].group.nodes, (std::vector<NodeId>{c1.node, a1.node, r1.node}));
  EXPECT_EQ(gen.candidates[0].pattern, "conv-add-relu");
  EXPECT_EQ(gen.stats[0].from_patterns, 1u);
}

TEST(PatternGenerator, WildcardOperatorMatchesAnyKernel) {
  PatternBuilder<BuiltinOps> p;
  Var x = p.var();
  auto any = any_op(p, {x});
  p.output(p.op(is<Relu>, {any}));
  BackendSpec<BuiltinOps> spec;
  spec.add("any-then-relu", std::move(p).build());
  BackendRegistry<BuiltinOps> reg{{"b", spec, [](Graph<> const&, NodeGroup const&) { return rules::ok; }}};
  GraphBuilder b;
  auto in = b.input("x", {2, 8});
  auto t = b.relu(b.sigmoid(in));
  auto u = b.relu(b.add(t, t));
  auto g = std::move(b).build({u});
  auto found = groups_of(g, reg);
  EXPECT_EQ(found.size(), 2u);  // sigmoid+relu, add+relu (the Input is no kernel)
}

struct SmallOnly : FusingBackend {
  static constexpr std::string_view name = "small-only";
  template <class Set>
  rules::Status can_run(Graph<Set> const&, NodeGroup const& group) const {
    return group.size() <= 2 ? rules::ok : rules::no_match("more than two ops");
  }
};

TEST(PatternGenerator, CanRunDropsWhatTheBackendRefuses) {
  Chain c;
  GraphFacts<BuiltinOps> facts(c.g);
  auto gen = generate_candidates(facts, Backends<SmallOnly>::registry<BuiltinOps>());
  EXPECT_EQ(gen.candidates.size(), 2u);
  EXPECT_EQ(gen.stats[0].rejected, 2u);
  for (auto const& cand : gen.candidates) EXPECT_LE(cand.group.size(), 2u);
}

TEST(PatternGenerator, ResNet50ConvBatchNormReluGroups) {
  auto g = models::build("resnet50");
  GraphFacts<BuiltinOps> facts(g);
  auto gen = generate_candidates(facts, Backends<FusingBackend>::registry<BuiltinOps>());
  std::size_t triples = 0;
  for (auto const& c : gen.candidates)
    if (c.group.size() == 3) {
      std::multiset<std::string_view> kinds;
      for (NodeId n : c.group.nodes) kinds.insert(g[n].op_name());
      triples += kinds == std::multiset<std::string_view>{"Conv2D", "BatchNorm", "Relu"};
    }
  // The stem and the first two convolutions of each of the 16 bottlenecks; the third one's
  // BatchNorm feeds the residual Add, whose Relu makes a 4-op group instead.
  EXPECT_EQ(triples, 1u + 2u * 16u);
  for (auto const& c : gen.candidates) EXPECT_TRUE(facts.convex(c.group.nodes));
}

TEST(PatternGenerator, NasNetBatchNormAddChains) {
  auto g = models::build("nasnet_a_mobile");
  GraphFacts<BuiltinOps> facts(g);
  auto gen = generate_candidates(facts, Backends<ChainBackend>::registry<BuiltinOps>());
  // Independently: every elementwise op (or BatchNorm) read only by one elementwise op forms a
  // pair group: in NASNet, each separable branch's last BatchNorm and the Add combining it.
  std::set<std::vector<NodeId>> pairs;
  for (NodeId n : facts.placed_nodes()) {
    if (!testing::post_op_node(g, n) || g.is_output(n) || g.users(n).size() != 1) continue;
    NodeId r = g.users(n)[0].node;
    if (testing::post_op_node(g, r)) pairs.insert({std::min(n, r), std::max(n, r)});
  }
  ASSERT_FALSE(pairs.empty());
  std::set<std::vector<NodeId>> found_pairs;
  for (auto const& c : gen.candidates)
    if (c.group.size() == 2) found_pairs.insert(c.group.nodes);
  for (auto const& p : pairs) EXPECT_TRUE(found_pairs.contains(p)) << g.label(p[0]) << " -> " << g.label(p[1]);
  EXPECT_EQ(gen.stats[0].truncated_seeds, 0u);
}

}  // namespace
}  // namespace autograph::placement
