// Export -> onnx.checker -> import -> run: graphs that use every built-in op (fused forms
// included) come back computing the same outputs.
#include <gtest/gtest.h>

#include "autograph/graph/builder.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/io/onnx/exporter.hpp"
#include "autograph/io/onnx/importer.hpp"
#include "onnx_testing.hpp"

namespace autograph {
namespace {

using testing::all_close;

/// Exports g, re-imports it and expects the same outputs on the same random inputs.
void expect_round_trip(Graph<BuiltinOps> g, std::string const& name) {
  fill_random_weights(g, 7);
  ImportedOnnxModel back = import_onnx_bytes(export_onnx_model(g, {.graph_name = name}).SerializeAsString());
  auto inputs = testing::random_inputs(g, 1);
  auto want = testing::run_reference(g, inputs);
  auto got = testing::run_reference(back.graph, inputs);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(all_close(got[i], want[i])) << name << " output " << i;
}

Graph<BuiltinOps> conv_net() {
  GraphBuilder b;
  Value x = b.input("image", {2, 3, 12, 12});
  Value c = b.conv2d(x, 8, {3, 3}, {.act = Activation::relu, .bias = true}, "conv1");
  c = b.batch_norm(c);
  Value s = b.conv2d(c, 8, {3, 3}, {.stride = {2, 2}, .pad = std::array<std::int64_t, 4>{1, 0, 1, 2}, .groups = 2, .act = Activation::sigmoid});
  Value t = b.conv2d(c, 8, {3, 3}, {.pad = std::array<std::int64_t, 4>{2, 2, 2, 2}, .dilation = {2, 2}, .act = Activation::tanh});
  Value p = b.max_pool(t, {3, 3}, {.stride = {2, 2}, .pad = {1, 1, 1, 1}, .ceil_mode = true});
  Value a = b.avg_pool(s, {2, 2}, {.stride = {1, 1}, .pad = {1, 1, 0, 0}, .count_include_pad = true});
  Value cat = b.concat({b.add(Resize{.sizes = {2, 8, 6, 6}, .mode = ResizeMode::linear}, {p}), b.add(Resize{.sizes = {2, 8, 6, 6}}, {a})});
  // A transposed convolution back up, and a kernel Enlarge feeding a convolution.
  Value w = b.weight("up.weight", {16, 4, 3, 3});
  Value up = b.add(ConvTranspose2D{.stride = {2, 2}, .pad = {1, 1, 1, 1}, .output_padding = {1, 1}}, {cat, w, b.weight("up.bias", {4}, WeightInit::uniform)});
  Value k = b.add(Enlarge{{5, 5}}, {b.weight("small.weight", {4, 4, 3, 3})});
  Value e = b.add(Conv2D{.pad = Conv2D::same_pad(5, 5)}, {up, k});
  Value g = b.global_avg_pool(e);
  Value flat = b.reshape(g, {2, -1});
  Value y = b.softmax(b.linear(flat, 5, true, Activation::relu));
  return std::move(b).build({y, b.add(Resize{.sizes = {2, 4, 24, 18}, .scales = {1, 1, 2, 1.5}, .mode = ResizeMode::cubic}, {up})});
}

Graph<BuiltinOps> elementwise_net() {
  GraphBuilder b;
  Value x = b.input("x", {3, 4, 5});
  Value y = b.input("y", {4, 5});
  Value s = b.sigmoid(x);
  std::vector<Value> outs = {
      b.add(x, y), b.sub(x, y), b.mul(x, y), b.div(x, b.add(Scale{1.f, 3.f}, {s})), b.add(Pow{}, {s, b.add(Abs{}, {y})}),
      b.add(Max{}, {x, y}), b.add(Min{}, {x, y}), b.relu(x), b.tanh(x), b.gelu(x), b.add(Exp{}, {x}), b.add(Log{}, {s}),
      b.add(Sqrt{}, {s}), b.add(Erf{}, {x}), b.add(Neg{}, {x}), b.add(Reciprocal{}, {b.add(Scale{2.f, 0.f}, {s})}),
      b.add(LeakyRelu{0.2f, 0.f}, {x}), b.add(Clip{-0.5f, 0.25f}, {x}), b.add(HardSigmoid{0.3f, 0.4f}, {x}), b.add(HardSwish{}, {x}),
      b.scale(x, 1.f, 0.5f), b.scale(x, -2.f, 0.f), b.scale(x, 1.f, 0.f), b.add(Identity{}, {x}),
  };
  return std::move(b).build(outs);
}

Graph<BuiltinOps> layout_net() {
  GraphBuilder b;
  Value x = b.input("x", {2, 6, 4, 3});
  auto parts = b.split(x, 1, {1, 2, 3});
  Value t = b.transpose(parts[2], {0, 2, 3, 1});
  Value sl = b.add(Slice{{1, -1}, {1, 0}, {4, 100}, {2, 2}}, {t});
  Value pd = b.add(Pad{{0, 1, 0, 2, 0, 0, 1, 1}, 0.5f}, {sl});
  Value rm = b.add(Reduce{ReduceKind::mean, {1, 3}, true}, {x});
  Value rs = b.add(Reduce{ReduceKind::sum, {-1}, false}, {x});
  Value all = b.add(Reduce{ReduceKind::sum, {}, false}, {x});
  Value ln = b.layer_norm(b.reshape(x, {2, 6, 12}));
  Value ln2 = b.add(LayerNorm{1, 1e-3f}, {x, b.weight("g", {6, 4, 3}, WeightInit::positive), b.weight("b", {6, 4, 3}, WeightInit::uniform)});
  Value mm = b.matmul(b.reshape(x, {2, 6, 12}), b.transpose(b.reshape(x, {2, 6, 12}), {0, 2, 1}));
  Value sm = b.softmax(mm, 1);
  return std::move(b).build({parts[0], pd, rm, rs, all, ln, ln2, sm, b.add(Reshape{{0, 3}}, {b.add(Slice{{0}, {0}, {0}, {}}, {x})})});
}

TEST(OnnxRoundTrip, ConvolutionsPoolingResizeAndFusedActivations) { expect_round_trip(conv_net(), "conv_net"); }
TEST(OnnxRoundTrip, EveryElementwiseOp) { expect_round_trip(elementwise_net(), "elementwise_net"); }
TEST(OnnxRoundTrip, LayoutNormalisationAndReductions) { expect_round_trip(layout_net(), "layout_net"); }

TEST(OnnxRoundTrip, OutputsThatAreInputsWeightsOrRepeated) {
  GraphBuilder b;
  Value x = b.input("x", {2, 3});
  Value w = b.weight("w", Tensor::random({2, 3}, 3));
  Value r = b.relu(x);
  auto g = std::move(b).build({x, w, r, r});
  auto model = export_onnx_model(g, {.output_names = {"x", "w_out", "relu_a", "relu_b"}});
  ASSERT_EQ(model.graph().output_size(), 4);
  EXPECT_EQ(model.graph().output(0).name(), "x");
  auto back = import_onnx_bytes(model.SerializeAsString());
  EXPECT_EQ(back.output_names, (std::vector<std::string>{"x", "w_out", "relu_a", "relu_b"}));
  auto in = testing::random_inputs(g, 5);
  auto want = testing::run_reference(g, in), got = testing::run_reference(back.graph, in);
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(all_close(got[i], want[i])) << i;
}

TEST(OnnxRoundTrip, ExportNamesTheProblem) {
  GraphBuilder b;
  Value x = b.input("x", {1, 4, 8, 8});
  auto g = std::move(b).build({b.conv2d(x, 4, {3, 3}, {}, "stem")});
  // Shape-only weights cannot be written: the error names the weight.
  try {
    export_onnx_model(g);
    FAIL() << "exported a weight without data";
  } catch (OnnxExportError const& e) {
    EXPECT_NE(std::string(e.what()).find("stem.weight"), std::string::npos) << e.what();
  }
  fill_random_weights(g, 1);
  EXPECT_THROW(export_onnx_model(g, {.output_names = {"a", "b"}}), OnnxExportError);
  EXPECT_THROW(export_onnx_model(g, {.output_names = {"x"}}), OnnxExportError);  // an input's name
}

TEST(OnnxRoundTrip, ExportedModelsPassOnnxChecker) {
  testing::ScratchDir scratch("autograph_roundtrip");  // removed with its files when the test ends
  auto const& dir = scratch.path();
  std::vector<std::filesystem::path> files;
  int k = 0;
  for (auto g : {conv_net(), elementwise_net(), layout_net()}) {
    fill_random_weights(g, 3);
    files.push_back(dir / ("net" + std::to_string(k++) + ".onnx"));
    export_onnx(g, files.back());
  }
  std::string report = testing::onnx_check(files, dir);
  if (report == "SKIP") GTEST_SKIP() << "python3-onnx is missing: onnx.checker not run";
  EXPECT_EQ(report, "");
}

}  // namespace
}  // namespace autograph
