// The fused attention at DETR's and SETR's sequence lengths (issue 18), one head of each: the
// attention core as the models write it (split heads, MatMul, Scale, Softmax, MatMul) fused by
// rules::TransformerFusion and run on the CPU runtime (the tiled kernel in its untuned default)
// gives the unfused graph's outputs on the reference executor (normwise <= 1e-4). One head has
// the kernel's structure of all heads: heads are independent work items of the same loop.
#include <gtest/gtest.h>

#include "autograph/cpu/runtime.hpp"
#include "autograph/models/transformer.hpp"
#include "autograph/rules/apply_greedily.hpp"
#include "autograph/rules/transformer_fusion_engine.hpp"
#include "autograph/runtime/reference_executor.hpp"
#include "autograph/schedule/sequential.hpp"
#include "matches_reference.hpp"

namespace autograph::cpu {
namespace {

/// softmax(q kT / sqrt(d)) v of one head: q [1, tq, d], k and v [1, tk, d].
Graph<> one_head(std::int64_t tq, std::int64_t tk, std::int64_t d) {
  GraphBuilder b;
  Value q = b.input("q", {1, tq, d}), k = b.input("k", {1, tk, d}), v = b.input("v", {1, tk, d});
  return std::move(b).build({models::detail::attention_core(b, q, k, v, 1)});
}

/// The fused graph has one FusedAttention, run by the tiled kernel, and matches the reference.
void expect_fused_matches_reference(std::int64_t tq, std::int64_t tk, std::int64_t d) {
  Graph<> g = one_head(tq, tk, d);
  Graph<> fused = rules::apply_greedily(g, rules::TransformerFusionEngine{}).graph;
  std::size_t attention = 0;
  for (NodeId id : fused.node_ids()) attention += fused[id].op.template get_if<FusedAttention>() != nullptr;
  ASSERT_EQ(attention, 1u) << "tq " << tq << " tk " << tk << " d " << d;
  std::vector<Tensor> in;
  for (NodeId id : g.inputs()) in.push_back(Tensor::random(g[id].outputs[0].shape, 10 + in.size()));
  auto want = ReferenceExecutor<>().run(g, in);
  auto lowered = lower(fused);
  EXPECT_TRUE(lowered->fallbacks().empty());  // the FusedAttention runs the tiled kernel, not its reference
  auto exe = CpuExecutable(lowered, schedule::sequential(KernelDag(fused)), {.check_arena = true, .cores = 2});
  EXPECT_TRUE(test::matches(exe.run(in), want, 1e-4)) << "tq " << tq << " tk " << tk << " d " << d;
}

// DETR-ResNet50 at [1, 3, 800, 1333]: 25 x 42 = 1050 memory tokens, heads of 32, 100 queries.
TEST(CpuLongAttention, DetrEncoderSelfAttentionHeadMatchesTheReference) { expect_fused_matches_reference(1050, 1050, 32); }
TEST(CpuLongAttention, DetrDecoderCrossAttentionHeadMatchesTheReference) { expect_fused_matches_reference(100, 1050, 32); }
// SETR at [1, 3, 384, 384]: 24 x 24 patches and the class token, heads of 64.
TEST(CpuLongAttention, SetrSelfAttentionHeadMatchesTheReference) { expect_fused_matches_reference(577, 577, 64); }

}  // namespace
}  // namespace autograph::cpu
