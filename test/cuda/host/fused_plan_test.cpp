// A small ViT block after TransformerFusion, lowered for planning only (no GPU): the plan has
// the launches and workspaces each fused op promises (FusedAttention one kernel and no score
// workspace, AddLayerNorm one kernel, a linear layer with GELU cuBLASLt then the GELU kernel,
// its workspace the cap cuBLASLt's heuristic is offered), its memory plans under a
// multi-stream schedule, and its launches, run on the CPU in many interleavings with the
// products as the reference's (host_launches.hpp), give the reference executor's outputs.
#include <gtest/gtest.h>

#include "autograph/cuda/epilogue.hpp"
#include "autograph/cuda/lower.hpp"
#include "autograph/cuda/memory_plan.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/models/transformer.hpp"
#include "autograph/rules/apply_greedily.hpp"
#include "autograph/rules/transformer_fusion_engine.hpp"
#include "autograph/schedule/nimble.hpp"
#include "host_launches.hpp"

namespace autograph::cuda {
namespace {

/// One pre-LN ViT encoder block as models/vit.hpp builds it (position embedding added to the
/// tokens, LN, attention, residual, LN, MLP with GELU, residual, the final LN) on tokens
/// [2, 5, 32], 4 heads; then TransformerFusion. The patch embedding is left out: a convolution
/// cannot be lowered without a GPU (cuDNN chooses its algorithm by running it).
Graph<> fused_vit_block() {
  GraphBuilder<> b;
  std::int64_t hidden = 32, heads = 4, mlp = 64;
  Value x = b.add(b.input("tokens", {2, 5, hidden}), b.weight("pos_embedding", Shape{1, 5, hidden}, WeightInit::uniform), "pos_add");
  Value y = b.layer_norm(x, 1e-6f, "ln_1");
  auto qkv = b.split(b.linear(y, 3 * hidden, true, Activation::none, "in_proj"), -1, {hidden, hidden, hidden}, "qkv_split");
  y = b.linear(models::detail::attention_core(b, qkv[0], qkv[1], qkv[2], heads), hidden, true, Activation::none, "out_proj");
  x = b.add(x, y, "residual_1");
  y = b.layer_norm(x, 1e-6f, "ln_2");
  y = b.linear(b.gelu(b.linear(y, mlp, true, Activation::none, "mlp.0"), "mlp.1"), hidden, true, Activation::none, "mlp.3");
  x = b.add(x, y, "residual_2");
  Graph<> g = std::move(b).build({b.layer_norm(x, 1e-6f, "ln")});
  fill_random_weights(g, 3);
  return rules::apply_greedily(g, rules::TransformerFusionEngine{}).graph;
}

std::vector<std::string> launch_names(LoweredGraph::Node const& n) {
  std::vector<std::string> names;
  for (auto const& l : n.launches) names.push_back(l.what);
  return names;
}

TEST(HostFusedPlan, AFusedVitBlockLowersForPlanningWithTheFusedKernels) {
  Graph<> g = fused_vit_block();
  auto lg = lower(g, nullptr);
  EXPECT_EQ(lg->device, nullptr);
  std::size_t attention = 0, norms = 0, gelu = 0, products = 0;
  for (NodeId id : g.node_ids()) {
    auto const* n = lg->node(id);
    if (!n) continue;
    if (g[id].op.is<FusedAttention>()) {
      ++attention;
      EXPECT_EQ(launch_names(*n), std::vector<std::string>{"fused_attention kernel"});
      EXPECT_TRUE(n->workspaces.empty());  // the scores never reach memory
    } else if (g[id].op.is<AddLayerNorm>()) {
      ++norms;
      EXPECT_EQ(launch_names(*n), std::vector<std::string>{"add_layer_norm kernel"});
      EXPECT_TRUE(n->workspaces.empty());
    } else if (auto const* mm = g[id].op.get_if<MatMul>(); mm && n->kernel) {
      ++products;
      gelu += mm->act == Activation::gelu;
      std::vector<std::string> want{std::string(gemm_launch)};
      if (mm->act == Activation::gelu) want.push_back(std::string(bias_activation_launch));
      EXPECT_EQ(launch_names(*n), want) << g.label(id);
      ASSERT_EQ(n->workspaces.size(), 1u) << g.label(id);
      EXPECT_EQ(n->workspaces[0], std::size_t{32} << 20);  // planned without cuBLASLt's heuristic: its cap
    }
  }
  EXPECT_EQ(attention, 1u);
  EXPECT_EQ(gelu, 1u);
  EXPECT_GE(norms, 2u);
  EXPECT_GE(products, 4u);
  // The memory plan under Nimble's streams: the products' workspaces are reused, not summed.
  Schedule s = schedule::nimble(KernelDag(g));
  HappensBefore hb(lg->id_bound);
  hb.build(s);
  validate_schedule(*lg, hb, true);
  MemoryPlan m = plan_memory(*lg, hb, true);
  EXPECT_LT(m.arena.size, products * (std::size_t{32} << 20));
}

TEST(HostFusedPlan, AFusedVitBlockRunsItsLaunchesLikeTheReference) {
  testing::check_launches(fused_vit_block(), "fused ViT block", -1.f, 1.f, 1e-4);
}

TEST(HostFusedPlan, ProductsPlannedWithoutAGpuCannotBeLaunched) {
  Graph<> g = fused_vit_block();
  auto lg = lower(g, nullptr);
  for (auto const& n : lg->nodes)
    for (auto const& l : n.launches)
      if (l.what == gemm_launch) {
        std::vector<float const*> in(n.inputs.size(), nullptr);
        std::vector<float*> out(n.outputs.size(), nullptr);
        std::vector<void*> workspaces(n.workspaces.size(), nullptr);
        LaunchArgs args{nullptr, nullptr, in, out, workspaces, {}, n.placed};
        EXPECT_THROW(l.fn(args), CudaError);
        return;
      }
  FAIL() << "no cuBLASLt launch in the plan";
}

}  // namespace
}  // namespace autograph::cuda
