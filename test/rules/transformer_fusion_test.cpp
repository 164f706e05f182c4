// rules::TransformerFusion: every rule verified numerically on random examples, and claims
// about what each builds (start graph => expected fused ops).
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/rules/apply_greedily.hpp>
#include <autograph/rules/transformer_fusion_engine.hpp>
#include <autograph/rules/verify.hpp>
#include <autograph/runtime/equivalence.hpp>
#include "testing/graph_queries.hpp"

namespace autograph::rules {
namespace transformer_fusion_test {
using autograph::testing::count_ops;

template <class Op>
Op const* only(Graph<> const& g) {
  Op const* found = nullptr;
  for (NodeId id : g.node_ids())
    if (auto const* op = g[id].op.template get_if<Op>()) {
      EXPECT_EQ(found, nullptr) << "more than one " << Op::name;
      found = op;
    }
  return found;
}

using Engine = TransformerFusionEngine;

/// The greedy result of the transformer fusions, validated and checked against the source.
GreedyResult<BuiltinOps> fuse(Graph<> g) {
  fill_random_weights(g, 5);
  auto r = apply_greedily(g, Engine{});
  validate(r.graph);
  auto c = compare_graphs(g, r.graph, 1e-4, 11);
  EXPECT_TRUE(c.passed) << c.why;
  return r;
}

TEST(TransformerFusion, EveryRuleVerifiesNumerically) {
  auto results = verify_rules<BuiltinOps>(TransformerFusion{}, {.trials = 4});
  ASSERT_EQ(results.size(), TransformerFusion::size);
  for (auto const& r : results) {
    EXPECT_EQ(r.verdict, Verdict::verified) << to_string(r);
    EXPECT_GE(r.checks, 4) << r.rule;
  }
}

TEST(TransformerFusion, AttentionWithAndWithoutAMask) {
  for (bool masked : {false, true}) {
    GraphBuilder b;
    Value q = b.input("q", {2, 3, 5, 8}), kt = b.input("kT", {2, 3, 8, 5}), v = b.input("v", {2, 3, 5, 8});
    Value s = b.scale(b.matmul(q, kt), 0.35355339f);
    if (masked) s = b.add(s, b.input("mask", {2, 1, 1, 5}));
    auto r = fuse(std::move(b).build({b.matmul(b.softmax(s), v)}));
    auto const* fa = only<FusedAttention>(r.graph);
    ASSERT_NE(fa, nullptr) << "masked " << masked;
    EXPECT_FLOAT_EQ(fa->scale, 0.35355339f);
    EXPECT_EQ(r.graph.num_nodes(), masked ? 5u : 4u);  // the inputs and the one fused op
  }
}

TEST(TransformerFusion, NoAttentionWhenTheProbabilitiesAreReadElsewhere) {
  GraphBuilder b;
  Value q = b.input("q", {5, 8}), kt = b.input("kT", {8, 5}), v = b.input("v", {5, 8});
  Value p = b.softmax(b.scale(b.matmul(q, kt), 0.5f));
  auto r = fuse(std::move(b).build({b.matmul(p, v), p}));  // the attention map is an output too
  EXPECT_EQ(count_ops(r.graph, "FusedAttention"), 0u);
}

TEST(TransformerFusion, NoAttentionForASoftmaxOverQueriesOrAShiftedScale) {
  for (int variant : {0, 1}) {
    GraphBuilder b;
    Value q = b.input("q", {5, 8}), kt = b.input("kT", {8, 5}), v = b.input("v", {5, 8});
    Value s = b.scale(b.matmul(q, kt), 0.5f, variant == 1 ? 1.f : 0.f);
    auto r = fuse(std::move(b).build({b.matmul(b.softmax(s, variant == 0 ? 0 : -1), v)}));
    EXPECT_EQ(count_ops(r.graph, "FusedAttention"), 0u) << variant;
  }
}

TEST(TransformerFusion, LinearWithBiasAndGeluIsOneMatMul) {
  GraphBuilder b;
  Value x = b.input("x", {2, 5, 8});
  auto r = fuse(std::move(b).build({b.gelu(b.linear(x, 6, true))}));
  auto const* mm = only<MatMul>(r.graph);
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->act, Activation::gelu);
  EXPECT_EQ(count_ops(r.graph, "Add") + count_ops(r.graph, "Gelu"), 0u);
  EXPECT_EQ(r.passes, 2u);  // the bias first, then the GELU into the biased product
}

TEST(TransformerFusion, ABroadcastAddendIsNotABias) {
  GraphBuilder b;
  Value x = b.input("x", {2, 5, 8});
  Value y = b.linear(x, 6, false);
  auto r = fuse(std::move(b).build({b.add(y, b.input("r", {5, 6}))}));
  EXPECT_EQ(count_ops(r.graph, "Add"), 1u);
}

TEST(TransformerFusion, ResidualLayerNormKeepsTheSumOnlyWhenItIsReadAgain) {
  for (bool pre_ln : {false, true}) {
    GraphBuilder b;
    Value x = b.input("x", {2, 5, 8});
    Value s = b.add(x, b.input("r", {1, 5, 8}));
    Value y = b.layer_norm(s, 1e-6f);
    auto r = fuse(std::move(b).build({pre_ln ? b.add(s, b.relu(y)) : y}));
    auto const* aln = only<AddLayerNorm>(r.graph);
    ASSERT_NE(aln, nullptr);
    EXPECT_EQ(aln->keep_sum, pre_ln);
    EXPECT_FLOAT_EQ(aln->epsilon, 1e-6f);
    EXPECT_EQ(count_ops(r.graph, "LayerNorm"), 0u);
    EXPECT_EQ(count_ops(r.graph, "Add"), pre_ln ? 1u : 0u);  // the next residual stays
  }
}

}  // namespace transformer_fusion_test
}  // namespace autograph::rules
