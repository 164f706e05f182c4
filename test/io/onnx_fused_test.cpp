// A graph of fused transformer ops (FusedAttention with and without a mask, MatMul with a bias
// and GELU, AddLayerNorm keeping its sum) exports as ONNX's primitive ops, passes onnx.checker,
// and re-imported computes the same outputs: an exported fused graph still runs in any ONNX
// runtime.
#include <gtest/gtest.h>

#include "autograph/graph/builder.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/io/onnx/exporter.hpp"
#include "autograph/io/onnx/importer.hpp"
#include "onnx_testing.hpp"

namespace autograph {
namespace {

/// One pre-LN encoder block of fused ops over [2, 5, 16], 2 heads of 8.
Graph<BuiltinOps> fused_block() {
  GraphBuilder b;
  Value x = b.input("x", {2, 5, 16});
  Value mask = b.input("mask", {2, 1, 1, 5});
  auto norm = [&](std::string const& n) { return std::vector<Value>{b.weight(n + ".gamma", Shape{16}, WeightInit::positive), b.weight(n + ".beta", Shape{16})}; };
  auto linear = [&](Value v, std::int64_t k, std::int64_t n, Activation act, std::string const& name) {
    return b.add(MatMul{act}, {v, b.weight(name + ".weight", Shape{k, n}), b.weight(name + ".bias", Shape{n}, WeightInit::uniform)}, name);
  };
  auto heads = [&](Value v, std::vector<std::int64_t> perm, std::string const& name) {
    return b.transpose(b.reshape(v, {2, 5, 2, 8}, name + "_reshape"), std::move(perm), name);
  };
  auto ln = norm("ln_1");
  auto first = b.add(AddLayerNorm{-1, 1e-6f, true}, {x, b.weight("pos", Shape{1, 5, 16}, WeightInit::uniform), ln[0], ln[1]}, "pos_ln_1");
  Value y{first.node, 0}, sum{first.node, 1};
  Value q = heads(linear(y, 16, 16, Activation::none, "q"), {0, 2, 1, 3}, "q_heads");
  Value kt = heads(linear(y, 16, 16, Activation::none, "k"), {0, 2, 3, 1}, "k_heads");
  Value v = heads(linear(y, 16, 16, Activation::none, "v"), {0, 2, 1, 3}, "v_heads");
  Value masked = b.add(FusedAttention{0.35355339f}, {q, kt, v, mask}, "masked_attention");
  Value plain = b.add(FusedAttention{0.35355339f}, {q, kt, v}, "attention");
  Value ctx = b.reshape(b.transpose(b.add(masked, plain), {0, 2, 1, 3}), {2, 5, 16});
  auto ln2 = norm("ln_2");
  Value n2 = b.add(AddLayerNorm{-1, 1e-6f, false}, {sum, linear(ctx, 16, 16, Activation::none, "out"), ln2[0], ln2[1]}, "residual_ln_2");
  return std::move(b).build({linear(n2, 16, 32, Activation::gelu, "mlp"), sum});
}

TEST(OnnxFused, ExportsAsPrimitiveOpsThatComputeTheSame) {
  Graph<BuiltinOps> g = fused_block();
  fill_random_weights(g, 7);
  ImportedOnnxModel back = import_onnx_bytes(export_onnx_model(g, {.graph_name = "fused"}).SerializeAsString());
  for (NodeId id : back.graph.node_ids()) {
    AnyOp const& op = back.graph[id].op;
    EXPECT_FALSE(op.is<FusedAttention>() || op.is<AddLayerNorm>()) << back.graph.label(id);
    if (op.is<MatMul>()) {
      EXPECT_EQ(back.graph[id].inputs.size(), 2u) << "ONNX's MatMul has no bias";
    }
  }
  auto inputs = testing::random_inputs(g, 1);
  auto want = testing::run_reference(g, inputs);
  auto got = testing::run_reference(back.graph, inputs);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(testing::all_close(got[i], want[i])) << "output " << i;
}

TEST(OnnxFused, ExportedModelPassesOnnxChecker) {
  testing::ScratchDir scratch("autograph_fused");  // removed with its files when the test ends
  auto const& dir = scratch.path();
  Graph<BuiltinOps> g = fused_block();
  fill_random_weights(g, 3);
  export_onnx(g, dir / "fused.onnx");
  std::string report = testing::onnx_check({dir / "fused.onnx"}, dir);
  if (report == "SKIP") GTEST_SKIP() << "python3-onnx is missing: onnx.checker not run";
  EXPECT_EQ(report, "");
}

}  // namespace
}  // namespace autograph
