// The fused transformer ops on the recording CUDA runtime: a small ViT after TransformerFusion
// captures and replays legally and race-free, and each fused node enqueues exactly the work
// its lowering promises: FusedAttention one fused_attention kernel (no library call, no score
// workspace) with one block per (batch matrix, query tile) and the shared memory its tiles
// need; AddLayerNorm one add_layer_norm kernel; a linear layer with GELU one cublasLtMatmul
// (the bias in its epilogue) then the bias_activation kernel for the exact GELU.
#include <gtest/gtest.h>

#include <map>

#include "autograph/cuda/attention_tiles.hpp"
#include "autograph/cuda/runtime.hpp"
#include "autograph/models/vit.hpp"
#include "autograph/rules/apply_greedily.hpp"
#include "autograph/rules/transformer_fusion_engine.hpp"
#include "autograph/schedule/nimble.hpp"
#include "recording.hpp"

namespace autograph::cuda {
namespace {

using NoAttention = rules::RuleEngine<BuiltinOps, rules::Rules<rules::FuseMatMulBias, rules::FuseMatMulGelu, rules::FuseAddLayerNorm,
                                                               rules::FuseAddLayerNormKeepSum>>;

Graph<> small_vit() {
  return models::vit({.patch = 8, .layers = 2, .hidden = 32, .heads = 4, .mlp = 64, .num_classes = 10}, {.batch = 1, .resolution = 16, .weight_seed = 3});
}

/// Lowers, captures and replays `g` once under a Nimble schedule; the recording's check.
recording::Report record(Graph<> const& g) {
  CudaGraphRuntime rt;
  auto lowered = rt.lower(g, {.random_weights = 1});
  recording::recorder().reset();
  {
    GraphExecutable exe(lowered, schedule::nimble(KernelDag(g)));
    exe.launch();
    exe.synchronize();
  }
  return recording::check(recording::recorder());
}

/// The work (kernels and library calls) recorded inside captures for each node label.
std::map<std::string, std::vector<recording::Call>> captured_work_by_node() {
  using Kind = recording::Call::Kind;
  std::map<std::string, std::vector<recording::Call>> work;
  bool capturing = false;
  for (auto const& c : recording::recorder().calls()) {
    if (c.kind == Kind::begin_capture) capturing = true;
    if (c.kind == Kind::end_capture) capturing = false;
    if (capturing && (c.kind == Kind::kernel || c.kind == Kind::library) && c.in_node) work[c.node].push_back(c);
  }
  return work;
}

bool contains(std::string const& s, std::string_view part) { return s.find(part) != std::string::npos; }

TEST(RecordingFused, BiasGeluAndAddLayerNormCaptureLegally) {
  Graph<> g = rules::apply_greedily(small_vit(), NoAttention{}).graph;
  std::size_t biased = 0, norms = 0;
  for (NodeId id : g.node_ids()) {
    biased += g[id].op.is<MatMul>() && g[id].inputs.size() == 3;
    norms += g[id].op.is<AddLayerNorm>();
  }
  EXPECT_EQ(biased, 2u * 4 + 1);
  EXPECT_EQ(norms, 5u);
  recording::Report r = record(g);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.captures, 1u);
}

TEST(RecordingFused, EachFusedOpEnqueuesItsOneKernel) {
  Graph<> g = rules::apply_greedily(small_vit(), rules::TransformerFusionEngine{}).graph;
  recording::Report r = record(g);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.captures, 1u);
  auto work = captured_work_by_node();
  std::size_t attention = 0, norms = 0, gelus = 0;
  for (NodeId id : g.node_ids()) {
    auto const& n = g[id];
    std::vector<recording::Call> const& calls = work[g.label(id)];
    if (n.op.is<FusedAttention>()) {
      ++attention;
      ASSERT_EQ(calls.size(), 1u) << g.label(id);
      EXPECT_EQ(calls[0].kind, recording::Call::Kind::kernel);
      EXPECT_TRUE(contains(calls[0].name, "fused_attention_kernel")) << calls[0].name;
      // [1, 4 heads, 5 tokens, 8]: four matrices of one 32-row query tile each.
      Shape const& y = n.outputs[0].shape;
      ASSERT_EQ(y, (Shape{1, 4, 5, 8}));
      kernels::attention::Tiles t = kernels::attention::tiles_for(8, 8);
      EXPECT_EQ(calls[0].grid.x, 4u * static_cast<unsigned>(kernels::attention::query_tiles(t, 5)));
      EXPECT_EQ(calls[0].block.x, static_cast<unsigned>(kernels::attention::threads));
      EXPECT_EQ(calls[0].shared_bytes, kernels::attention::shared_bytes(t, 8, 8));
    } else if (n.op.is<AddLayerNorm>()) {
      ++norms;
      ASSERT_EQ(calls.size(), 1u) << g.label(id);
      EXPECT_TRUE(contains(calls[0].name, "add_layer_norm_rows")) << calls[0].name;
      EXPECT_EQ(calls[0].grid.x, static_cast<unsigned>(n.outputs[0].shape.numel() / 32));  // a block per row of 32
    } else if (auto const* mm = n.op.get_if<MatMul>(); mm && mm->act == Activation::gelu) {
      ++gelus;
      ASSERT_EQ(calls.size(), 2u) << g.label(id);
      EXPECT_EQ(calls[0].kind, recording::Call::Kind::library);
      EXPECT_EQ(calls[0].name, "cublasLtMatmul");
      EXPECT_TRUE(contains(calls[1].name, "bias_activation")) << calls[1].name;
    }
  }
  EXPECT_EQ(attention, 2u);
  EXPECT_EQ(norms, 5u);
  EXPECT_EQ(gelus, 2u);
}

}  // namespace
}  // namespace autograph::cuda
