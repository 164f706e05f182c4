#include <autograph/models/inception_v3.hpp>

#include "model_testing.hpp"

namespace autograph::models {
namespace {

using namespace testing;

TEST(InceptionV3, ParametersMatchTorchvisionWithTheAuxClassifierAdded) {
  Graph<> g = inception_v3();
  EXPECT_NO_THROW(validate(g));
  // torchvision's 27,161,264 parameters include AuxLogits = InceptionAux(768, 1000), which runs
  // only in training and so is not in the inference graph:
  //   conv0 BasicConv2d(768 -> 128, 1x1): 768*128     =    98,304 + BN 2*128 =   256  ->    98,560
  //   conv1 BasicConv2d(128 -> 768, 5x5): 128*768*25  = 2,457,600 + BN 2*768 = 1,536  -> 2,459,136
  //   fc    Linear(768 -> 1000):          768*1000    =   768,000 + bias       1,000  ->   769,000
  //                                                                                      3,326,696
  constexpr std::int64_t aux_classifier = 98'560 + 2'459'136 + 769'000;
  EXPECT_EQ(aux_classifier, 3'326'696);
  EXPECT_EQ(trainable_parameters(g) + aux_classifier, 27'161'264);
  // The graph also holds each BatchNorm's running mean and var: 2 per channel of the 94 BNs.
  EXPECT_GT(graph_stats(g).parameters, trainable_parameters(g));
}

TEST(InceptionV3, MacsWithinTwoPercentOfTorchvision) {
  EXPECT_LT(relative_error(graph_stats(inception_v3()).macs, 5.71e9), 0.02);
}

TEST(InceptionV3, HasElevenInceptionBlocksAndFactorizedBranches) {
  Graph<> g = inception_v3();
  // Mixed_5b..7c each end in one concat named "<block>/concat".
  std::size_t blocks = count_nodes(g, [](auto const& n) { return n.name.starts_with("Mixed_") && n.name.ends_with("/concat"); });
  EXPECT_EQ(blocks, 11u);
  // 94 BasicConv2d: stem 5, A 3x7, B 4, C 4x10, D 6, E 2x9; each conv + BN(eps 0.001) + ReLU.
  EXPECT_EQ(count_ops<Conv2D>(g), 94u);
  EXPECT_EQ(count_ops<BatchNorm>(g), 94u);
  EXPECT_EQ(count_nodes(g, [](auto const& n) { return n.template is<BatchNorm>() && n.template get_if<BatchNorm>()->epsilon == 0.001f; }),
            94u);
  auto kernels = [&](std::int64_t r, std::int64_t s) {
    return count_nodes(g, [&](auto const& n) {
      if (!n.template is<Conv2D>()) return false;
      auto const& w = g.desc(n.inputs[1]).shape;
      return w[2] == r && w[3] == s;
    });
  };
  EXPECT_EQ(kernels(1, 7), 13u);  // 3 per InceptionC x 4, 1 in InceptionD
  EXPECT_EQ(kernels(7, 1), 13u);
  EXPECT_EQ(kernels(1, 3), 4u);  // 2 per InceptionE x 2
  EXPECT_EQ(kernels(3, 1), 4u);
  // The grid: 35x35 (Mixed_5*), 17x17 (Mixed_6*), 8x8 (Mixed_7*) at 299.
  EXPECT_EQ(shape_named(g, "Mixed_5d/concat"), (Shape{1, 288, 35, 35}));
  EXPECT_EQ(shape_named(g, "Mixed_6e/concat"), (Shape{1, 768, 17, 17}));
  EXPECT_EQ(shape_named(g, "Mixed_7c/concat"), (Shape{1, 2048, 8, 8}));
}

TEST(InceptionV3, BatchAndDtypeAreOptions) {
  Graph<> g = inception_v3({.batch = 3, .dtype = DType::float16});
  EXPECT_EQ(input_shape(g), (Shape{3, 3, 299, 299}));
  EXPECT_EQ(output_shape(g), (Shape{3, 1000}));
  for (NodeId id : g.node_ids()) ASSERT_EQ(g[id].outputs[0].dtype, DType::float16) << g.label(id);
  EXPECT_NEAR(graph_stats(g).macs, 3 * graph_stats(inception_v3()).macs, 1.0);
  EXPECT_THROW(inception_v3({.resolution = 74}), Error);
  EXPECT_THROW(inception_v3({.batch = 0}), Error);
}

TEST(InceptionV3, RunsOnTheReferenceExecutor) {
  // 299 is < 0.5 s in Release; 139 keeps the sanitizer build quick and still reaches every block.
  Graph<> g = inception_v3({.resolution = 139, .weight_seed = 11});
  expect_runs(g, Shape{1, 1000});
}

TEST(InceptionV3LastBlock, IsMixed7cAloneWithTheWholeNetworksWeightsAndShapes) {
  Graph<> block = inception_v3_last_block();
  EXPECT_NO_THROW(validate(block));
  EXPECT_EQ(input_shape(block), (Shape{1, 2048, 8, 8}));
  EXPECT_EQ(output_shape(block), (Shape{1, 2048, 8, 8}));
  // Its nine BasicConv2d, by hand: 1x1 2048->320, 1x1 2048->384, 1x3 and 3x1 384->384, 1x1
  // 2048->448, 3x3 448->384, 1x3 and 3x1 384->384, 1x1 2048->192 (no bias), and 2 per channel
  // of their BatchNorms (2 x 3,264 channels).
  constexpr std::int64_t convs = 2048 * 320 + 2048 * 384 + 4 * 384 * 384 * 3 + 2048 * 448 + 448 * 384 * 9 + 2048 * 192;
  EXPECT_EQ(convs, 6'070'272);
  EXPECT_EQ(trainable_parameters(block), convs + 2 * 3'264);
  EXPECT_DOUBLE_EQ(graph_stats(block).macs, 64.0 * convs);  // every conv keeps the 8x8 map
  // The same block as IOS's whole network's last: as many nodes.
  Graph<> whole = inception_v3_ios();
  auto in_mixed_7c = [](Graph<> const& g) {
    return count_nodes(g, [](auto const& node) { return node.name.starts_with("Mixed_7c/"); });
  };
  EXPECT_EQ(in_mixed_7c(block), in_mixed_7c(whole));
  EXPECT_EQ(count_ops<Conv2D>(block), 9u);
  expect_runs(inception_v3_last_block({.batch = 2, .resolution = 3, .weight_seed = 4}), Shape{2, 2048, 3, 3});
}

TEST(InceptionV3Ios, IsTorchvisionsNetworkWithFlatEBlocksAndNoClassifier) {
  Graph<> ios = inception_v3_ios(), tv = inception_v3();
  EXPECT_NO_THROW(validate(ios));
  EXPECT_EQ(output_shape(ios), (Shape{1, 2048, 1, 1}));  // inception_logits: the global average pool
  EXPECT_EQ(count_ops<Conv2D>(ios), count_ops<Conv2D>(tv));
  // Each E block concatenates its six outputs at once: two concatenations fewer per block.
  EXPECT_EQ(count_ops<Concat>(ios) + 4, count_ops<Concat>(tv));
  EXPECT_EQ(count_ops<MatMul>(ios), 0u);
  EXPECT_EQ(node_named(ios, "Mixed_7c/concat").inputs.size(), 6u);
  EXPECT_EQ(shape_named(ios, "Mixed_7c/concat"), shape_named(tv, "Mixed_7c/concat"));
  // The same weights but the classifier's 2048 x 1000 + 1000.
  EXPECT_EQ(trainable_parameters(ios) + 2048 * 1000 + 1000, trainable_parameters(tv));
  expect_runs(inception_v3_ios({.resolution = 75, .weight_seed = 3}), Shape{1, 2048, 1, 1});
}

}  // namespace
}  // namespace autograph::models
