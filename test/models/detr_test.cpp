#include <autograph/models/detr.hpp>

#include <cmath>
#include <numbers>

#include "model_testing.hpp"
#include "testing/graph_queries.hpp"

namespace autograph::models {
namespace {
using autograph::testing::trainable_under;

using namespace testing;

/// What DETR's main.py prints: parameters with requires_grad. backbone.py freezes every backbone
/// parameter outside layer2..layer4, i.e. the stem conv and layer1.
std::int64_t detr_requires_grad(Graph<> const& g) {
  return trainable_parameters(g) - trainable_under(g, "backbone/conv1.") - trainable_under(g, "backbone/layer1.");
}

TEST(Detr, ParametersAreWhatPyTorchCounts) {
  Graph<> g = detr_r50_e6();
  EXPECT_NO_THROW(validate(g));
  // torch.hub detr_resnet50: sum(p.numel() for p in model.parameters()). The frozen BatchNorm's
  // four tensors are buffers there, and here.
  EXPECT_EQ(trainable_parameters(g), 41'524'768);
  // The parts, by hand: ResNet-50 without fc (25,557,032 - 2,049,000) less its BatchNorm affine
  // (2 x 26,560 channels); per encoder layer 4 x 65,792 (q, k, v, out) + 526,336 + 524,544 (FFN) +
  // 1,024 (2 norms); per decoder layer 8 x 65,792 + 1,050,880 + 1,536; decoder norm 512.
  EXPECT_EQ(trainable_under(g, "backbone/"), 25'557'032 - 2'049'000 - 2 * 26'560);
  EXPECT_EQ(trainable_under(g, "transformer.encoder.layers.0/"), 1'315'072);
  EXPECT_EQ(trainable_under(g, "transformer.decoder.layers.0/"), 1'578'752);
  EXPECT_EQ(trainable_under(g, "input_proj"), 2048 * 256 + 256);
  EXPECT_EQ(trainable_under(g, "query_embed"), 100 * 256);
  EXPECT_EQ(trainable_under(g, "class_embed"), 256 * 92 + 92);
  EXPECT_EQ(trainable_under(g, "bbox_embed"), 2 * (256 * 256 + 256) + 256 * 4 + 4);
  // The position encoding and the decoder's zero target are buffers; they hold data from the
  // start (everything else is shape-only).
  EXPECT_EQ(graph_stats(g).parameters - trainable_parameters(g), 4 * 26'560 + 1050 * 256 + 100 * 256);
}

TEST(Detr, PaperCountsAreDetrsRequiresGradCountRounded) {
  // DETR's main.py prints "number of params: 41302368" for detr_resnet50; the paper's Table I
  // gives 37.40 / 41.30 / 49.20 M, i.e. the same count rounded to 0.1 M (to 0.01 M, E3's 37.357 M
  // would read 37.36).
  Graph<> e3 = detr_r50_e3(), e6 = detr_r50_e6(), e12 = detr_r50_e12();
  EXPECT_EQ(trainable_under(e6, "backbone/conv1.") + trainable_under(e6, "backbone/layer1."), 9'408 + 212'992);
  EXPECT_EQ(detr_requires_grad(e6), 41'302'368);
  EXPECT_EQ(detr_requires_grad(e3), 37'357'152);
  EXPECT_EQ(detr_requires_grad(e12), 49'192'800);
  for (auto [g, paper] : {std::pair{&e3, 37.40}, {&e6, 41.30}, {&e12, 49.20}})
    EXPECT_DOUBLE_EQ(std::round(static_cast<double>(detr_requires_grad(*g)) / 1e5) / 10, paper);
}

TEST(Detr, ShapesAtThePublishedInput) {
  Graph<> g = detr_r50_e3();
  EXPECT_EQ(input_shape(g), (Shape{1, 3, 800, 1333}));
  ASSERT_EQ(g.outputs().size(), 2u);
  EXPECT_EQ(g.desc(g.outputs()[0]).shape, (Shape{1, 100, 92}));
  EXPECT_EQ(g.desc(g.outputs()[1]).shape, (Shape{1, 100, 4}));
  // Table I: the encoder's attention reads 1050 tokens (25 x 42), the decoder's 100 queries.
  EXPECT_EQ(shape_named(g, "tokens"), (Shape{1, 1050, 256}));
  EXPECT_EQ(shape_named(g, "transformer.encoder.layers.2/self_attn/softmax"), (Shape{1, 8, 1050, 1050}));
  EXPECT_EQ(shape_named(g, "transformer.decoder.layers.5/multihead_attn/softmax"), (Shape{1, 8, 100, 1050}));
  EXPECT_EQ(count_ops<Softmax>(g), 3u + 2 * 6);
  EXPECT_EQ(count_ops<LayerNorm>(g), 3u * 2 + 6 * 3 + 1);
  EXPECT_EQ(count_ops<Sigmoid>(g), 1u);
  // Post-norm: each encoder layer's first LayerNorm reads the attention's residual sum.
  EXPECT_EQ(g[node_named(g, "transformer.encoder.layers.1/norm1").inputs[0].node].name, "transformer.encoder.layers.1/residual_attn");
}

TEST(Detr, SinePositionEncodingIsDetrs) {
  // PositionEmbeddingSine(128, normalize=True) on an unpadded 2 x 3 map: y_embed = (y + 1) / 2 * 2 pi,
  // x_embed = (x + 1) / 3 * 2 pi; channel c of each half divides by 10000^(2 floor(c/2) / 128).
  Tensor pos = detail::detr_sine_position(2, 3, 256);
  ASSERT_EQ(pos.shape(), (Shape{1, 6, 256}));
  auto at = [&](int y, int x, int c) { return pos.data()[static_cast<std::size_t>((y * 3 + x) * 256 + c)]; };
  double two_pi = 2 * std::numbers::pi;
  EXPECT_NEAR(at(0, 2, 0), std::sin(1 / (2 + 1e-6) * two_pi), 1e-6);
  EXPECT_NEAR(at(1, 0, 1), std::cos(2 / (2 + 1e-6) * two_pi), 1e-6);
  EXPECT_NEAR(at(1, 1, 128), std::sin(2 / (3 + 1e-6) * two_pi), 1e-6);
  EXPECT_NEAR(at(0, 2, 128 + 5), std::cos(3 / (3 + 1e-6) * two_pi / std::pow(10000.0, 4.0 / 128)), 1e-6);
  EXPECT_NEAR(at(1, 2, 127), std::cos(2 / (2 + 1e-6) * two_pi / std::pow(10000.0, 126.0 / 128)), 1e-6);
  // The y half does not change along x.
  EXPECT_EQ(at(1, 0, 7), at(1, 2, 7));
}

TEST(Detr, ResolutionIsTheShortSideAndBatchTilesTheQueries) {
  Graph<> g = detr_r50_e3({.batch = 2, .resolution = 400});
  EXPECT_EQ(input_shape(g), (Shape{2, 3, 400, 667}));  // 400 * 1333 / 800, rounded
  EXPECT_EQ(shape_named(g, "tokens"), (Shape{2, 13 * 21, 256}));
  EXPECT_EQ(g.desc(g.outputs()[0]).shape, (Shape{2, 100, 92}));
  EXPECT_EQ(trainable_parameters(g), 37'579'552);  // the count does not depend on the input
  EXPECT_EQ(shape_named(g, "transformer.tgt.repeat"), (Shape{2, 100, 256}));
}

TEST(Detr, InvalidOptionsSayWhatIsWrong) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (Error const& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([] { detr_r50_e6({.batch = 0}); }), "detr_r50_e6: batch must be >= 1, got 0");
  EXPECT_EQ(message([] { detr_r50_e3({.resolution = 0}); }), "detr_r50_e3: resolution must be >= 1, got 0");
  EXPECT_NE(message([] { detr({.heads = 7}); }).find("256 must be even and split into 7 heads"), std::string::npos);
  EXPECT_NE(message([] { detr({.decoder_layers = 0}); }).find("decoder_layers"), std::string::npos);
  // The position encoding is built with data; a resolution whose input no device could hold is
  // refused before it (graph shape inference caps every tensor at 2^48 elements).
  EXPECT_NE(message([] { detr_r50_e3({.resolution = 99'999'999'999}); }).find("Input 'image': output shape [1,3,99999999999,"),
            std::string::npos);
}

TEST(Detr, SmallConfigurationRunsOnTheReferenceExecutor) {
  // One encoder and one decoder layer on a 64 x 107 image (a 2 x 4 feature map), random weights.
  Graph<> g = detr({.encoder_layers = 1, .decoder_layers = 1, .queries = 10}, {.resolution = 64, .weight_seed = 5});
  auto out = run_random(g);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape(), (Shape{1, 10, 92}));
  EXPECT_EQ(out[1].shape(), (Shape{1, 10, 4}));
  EXPECT_EQ(non_finite(out[0]), 0u);
  for (float v : out[1].data()) {
    EXPECT_GE(v, 0.f);  // boxes are sigmoids
    EXPECT_LE(v, 1.f);
  }
}

}  // namespace
}  // namespace autograph::models
