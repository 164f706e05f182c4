// Rewrites: copy-on-write (the parent is untouched), weights shared never copied, constant
// folding of weight transforms, shape-only transforms kept, the change log, the fold cache.
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/graph/structural_hash.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/rules/fold_weights.hpp>
#include <autograph/rules/library/conv_folding.hpp>
#include <autograph/rules/library/fusion.hpp>
#include <autograph/rules/library/merge.hpp>
#include "testing/graph_queries.hpp"

namespace autograph::rules {
namespace rewriter_test {
using autograph::testing::count_ops;

template <class R>
std::optional<Rewritten<BuiltinOps>> rewrite_first(Graph<> const& g, R const& rule = {}, RewriteOptions o = {.fold = fold_with_reference}) {
  MatchIndex<> idx(g);
  std::optional<Match> first;
  for_each_match(rule, idx, [&](Match const& m) {
    if (!first) first = m;
  });
  if (!first) return std::nullopt;
  return rewrite(g, rule, *first, o);
}

Graph<> two_sibling_convs(bool with_data) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto a = b.conv2d(x, 8, {3, 3}), c = b.conv2d(x, 16, {3, 3});
  auto g = std::move(b).build({b.relu(a), b.relu(c)});
  if (with_data) fill_random_weights(g, 7);
  return g;
}

/// A rule whose target does not fit its match (wrong rank): rewriting fails with a reason.
struct Broken : PatternRule<Broken> {
  static constexpr std::string_view name = "test-broken";
  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    p.output(p.op(is<Relu>, {p.var()}));
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    return {rw.add(Transpose{{1, 0, 2}}, {m.var(0)})};
  }
};

TEST(Rewrite, LeavesTheParentUntouchedAndSharesWeights) {
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 8, 8});
  auto g = std::move(b).build({b.relu(b.conv2d(x, 4, {3, 3}))});
  fill_random_weights(g, 1);
  auto before = structural_hash(g);
  NodeId w = g[g[g.outputs()[0].node].inputs[0].node].inputs[1].node;
  auto r = rewrite_first<FuseConvRelu>(g);
  ASSERT_TRUE(r);
  EXPECT_EQ(structural_hash(g), before);
  EXPECT_EQ(g.num_nodes(), 4u);
  EXPECT_EQ(r->graph.num_nodes(), 3u);
  validate(r->graph);
  // The weight node is the same node with the same storage: nothing was copied.
  EXPECT_EQ(r->graph[w].get_if<Weight>()->data.get(), g[w].get_if<Weight>()->data.get());
  EXPECT_EQ(r->changes.added.size(), 1u);
  EXPECT_EQ(r->changes.removed.size(), 2u);  // the conv and the relu
  EXPECT_EQ(r->changes.replaced.size(), 1u);
}

TEST(Rewrite, FoldsWeightTransformsWhenWeightsHaveData) {
  auto g = two_sibling_convs(true);
  auto r = rewrite_first<MergeSiblingOps>(g);
  ASSERT_TRUE(r);
  validate(r->graph);
  EXPECT_EQ(count_ops(r->graph, "Concat"), 0u);  // folded into a new weight
  EXPECT_EQ(count_ops(r->graph, "Conv2D"), 1u);
  EXPECT_EQ(count_ops(r->graph, "Split"), 1u);
  EXPECT_EQ(r->changes.folded, 1u);
  for (NodeId id : r->graph.node_ids()) {
    if (auto const* w = r->graph[id].get_if<Weight>()) {
      EXPECT_TRUE(w->data) << r->graph.label(id);
    }
  }
  // The folded weight is the two kernels, one after the other.
  NodeId conv = r->graph[r->graph.outputs()[0].node].inputs[0].node;
  conv = r->graph[conv].inputs[0].node;
  auto const& merged = *r->graph[r->graph[conv].inputs[1].node].get_if<Weight>();
  EXPECT_EQ(merged.desc.shape, (Shape{24, 4, 3, 3}));
}

TEST(Rewrite, KeepsWeightTransformsForShapeOnlyWeights) {
  auto g = two_sibling_convs(false);
  auto r = rewrite_first<MergeSiblingOps>(g);
  ASSERT_TRUE(r);
  EXPECT_EQ(count_ops(r->graph, "Concat"), 1u);
  EXPECT_EQ(r->changes.folded, 0u);
  for (NodeId id : r->graph.node_ids()) {
    if (r->graph[id].op.name() == "Concat") {
      EXPECT_TRUE(is_weight_only(r->graph, id));
    }
  }
}

TEST(Rewrite, FoldingOffKeepsTransformsAndFoldingLaterGivesTheSameWeights) {
  auto g = two_sibling_convs(true);
  auto now = rewrite_first<MergeSiblingOps>(g);
  auto later = rewrite_first<MergeSiblingOps>(g, {}, RewriteOptions{});  // no folder
  ASSERT_TRUE(now && later);
  EXPECT_EQ(count_ops(later->graph, "Concat"), 1u);  // kept as a node, no data computed
  EXPECT_EQ(later->changes.folded, 0u);
  Graph<> folded = later->graph;
  EXPECT_EQ(fold_weight_transforms(folded), 1u);
  validate(folded);
  EXPECT_EQ(count_ops(folded, "Concat"), 0u);
  EXPECT_EQ(folded.num_nodes(), now->graph.num_nodes());
  // The same kernel values either way.
  auto weight_of_conv = [](Graph<> const& h) {
    for (NodeId id : h.node_ids())
      if (h[id].is<Conv2D>()) return h[h[id].inputs[1].node].get_if<Weight>()->data;
    return std::shared_ptr<std::vector<float> const>{};
  };
  auto a = weight_of_conv(now->graph), b = weight_of_conv(folded);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, *b);
  // Nothing to fold in a graph without transforms; `later` itself is untouched.
  EXPECT_EQ(fold_weight_transforms(folded), 0u);
  EXPECT_EQ(count_ops(later->graph, "Concat"), 1u);
}

TEST(Rewrite, FoldCacheSharesFoldedStorageBetweenGraphs) {
  auto g = two_sibling_convs(true);
  FoldCache cache;
  auto a = rewrite_first<MergeSiblingOps>(g, {}, {.fold = fold_with_reference, .fold_cache = &cache});
  auto b = rewrite_first<MergeSiblingOps>(g, {}, {.fold = fold_with_reference, .fold_cache = &cache});
  ASSERT_TRUE(a && b);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(structural_hash(a->graph), structural_hash(b->graph));
  EXPECT_TRUE(structurally_equal(a->graph, b->graph));
}

/// A WeightFolder that counts its calls and gives every output zeros: the Rewriter uses
/// whichever folder it is given (the reference kernels are one choice, not a dependency).
int zero_folder_calls = 0;
std::vector<Tensor> zero_folder(AnyOp const&, std::span<Tensor const>, std::span<TensorDesc const> out) {
  ++zero_folder_calls;
  std::vector<Tensor> r;
  for (auto const& d : out) r.emplace_back(d.shape);
  return r;
}
std::vector<Tensor> no_tensors(AnyOp const&, std::span<Tensor const>, std::span<TensorDesc const>) { return {}; }

TEST(Rewrite, FoldsWithTheInjectedFolder) {
  auto g = two_sibling_convs(true);
  zero_folder_calls = 0;
  auto r = rewrite_first<MergeSiblingOps>(g, {}, {.fold = zero_folder});
  ASSERT_TRUE(r);
  EXPECT_EQ(zero_folder_calls, 1);
  EXPECT_EQ(r->changes.folded, 1u);
  EXPECT_EQ(count_ops(r->graph, "Concat"), 0u);
  for (NodeId id : r->graph.node_ids())
    if (r->graph[id].is<Conv2D>()) {
      auto const& w = *r->graph[r->graph[id].inputs[1].node].get_if<Weight>();
      EXPECT_EQ(w.desc.shape, (Shape{24, 4, 3, 3}));
      EXPECT_EQ(std::ranges::count(*w.data, 0.f), 24 * 4 * 3 * 3);  // the folder's zeros, not the kernels
    }
}

TEST(Rewrite, AFolderGivingTheWrongNumberOfTensorsIsAnErrorNamingTheOp) {
  auto g = two_sibling_convs(true);
  try {
    rewrite_first<MergeSiblingOps>(g, {}, {.fold = no_tensors});
    FAIL() << "expected an error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("Concat"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0 tensors for 1 outputs"), std::string::npos) << e.what();
  }
}

TEST(Rewrite, BatchNormFoldLeavesNoBatchNormAndNoDeadWeights) {
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 8, 8});
  auto g = std::move(b).build({b.batch_norm(b.conv2d(x, 4, {3, 3}), 0.25f)});
  fill_random_weights(g, 3);
  auto r = rewrite_first<FoldConvBatchNorm>(g);
  ASSERT_TRUE(r);
  EXPECT_EQ(count_ops(r->graph, "BatchNorm"), 0u);
  EXPECT_EQ(r->graph.num_nodes(), 4u);  // x, folded weight, folded bias, conv
  EXPECT_EQ(r->graph.num_nodes(), r->graph.id_bound() - r->changes.removed.size());
}

TEST(Rewrite, ReportsWhyATargetCannotBeBuilt) {
  GraphBuilder b;
  auto g = std::move(b).build({b.relu(b.input("x", {2, 3}))});
  MatchIndex<> idx(g);
  std::optional<Match> m;
  for_each_match(Broken{}, idx, [&](Match const& x) { m = x; });
  ASSERT_TRUE(m);
  std::string why;
  EXPECT_FALSE(rewrite(g, Broken{}, *m, {}, &why));
  EXPECT_NE(why.find("test-broken"), std::string::npos);
  EXPECT_NE(why.find("Transpose"), std::string::npos);
}

}  // namespace rewriter_test
}  // namespace autograph::rules
