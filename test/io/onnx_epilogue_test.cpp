// Conv2DEpilogue and MatMulEpilogue export as ONNX's primitive ops (Conv / MatMul, then one Add,
// Mul, activation or Mul + Add per step of the chain), pass onnx.checker, and re-imported
// compute the same outputs: a graph with fused chains still runs in any ONNX runtime.
#include <gtest/gtest.h>

#include "autograph/graph/builder.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/io/onnx/exporter.hpp"
#include "autograph/io/onnx/importer.hpp"
#include "onnx_testing.hpp"

namespace autograph {
namespace {

/// A residual conv block and a linear layer with a chain of every kind of step.
Graph<BuiltinOps> epilogue_graph() {
  GraphBuilder b;
  Value x = b.input("x", {1, 4, 6, 5});
  Value w = b.weight("w", Shape{4, 4, 3, 3}), bias = b.weight("bias", Shape{4}, WeightInit::uniform);
  Conv2D conv{{1, 1}, Conv2D::same_pad(3, 3)};
  Value block = b.add(Conv2DEpilogue::of(conv, true, {EpilogueStep::add(), EpilogueStep::activation(Activation::relu)}), {x, w, bias, x}, "block");
  Value t = b.input("t", {2, 3, 8});
  Value r = b.input("r", {2, 3, 8});
  Value lin = b.add(MatMulEpilogue::of(MatMul{Activation::gelu}, false,
                                       {EpilogueStep::mul(), EpilogueStep::affine(0.5f, 0.25f), EpilogueStep::add(), EpilogueStep::activation(Activation::tanh)}),
                    {t, b.weight("lw", Shape{8, 8}), r, t}, "linear");
  return std::move(b).build({block, lin});
}

TEST(OnnxEpilogue, ExportsAsPrimitiveOpsThatComputeTheSame) {
  Graph<BuiltinOps> g = epilogue_graph();
  fill_random_weights(g, 7);
  ImportedOnnxModel back = import_onnx_bytes(export_onnx_model(g, {.graph_name = "epilogue"}).SerializeAsString());
  std::size_t adds = 0;
  for (NodeId id : back.graph.node_ids()) {
    AnyOp const& op = back.graph[id].op;
    EXPECT_FALSE(op.is<Conv2DEpilogue>() || op.is<MatMulEpilogue>()) << back.graph.label(id);
    adds += op.is<Add>();
  }
  EXPECT_GE(adds, 3u);  // the residual, the scale's shift, the linear layer's add (the conv's bias stays Conv's input)
  auto inputs = testing::random_inputs(g, 1);
  auto want = testing::run_reference(g, inputs);
  auto got = testing::run_reference(back.graph, inputs);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(testing::all_close(got[i], want[i])) << "output " << i;
}

TEST(OnnxEpilogue, ExportedModelPassesOnnxChecker) {
  testing::ScratchDir scratch("autograph_epilogue");  // removed with its files when the test ends
  auto const& dir = scratch.path();
  Graph<BuiltinOps> g = epilogue_graph();
  fill_random_weights(g, 3);
  export_onnx(g, dir / "epilogue.onnx");
  std::string report = testing::onnx_check({dir / "epilogue.onnx"}, dir);
  if (report == "SKIP") GTEST_SKIP() << "python3-onnx is missing: onnx.checker not run";
  EXPECT_EQ(report, "");
}

}  // namespace
}  // namespace autograph
