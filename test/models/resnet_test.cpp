#include <autograph/models/resnet.hpp>

#include "model_testing.hpp"

namespace autograph::models {
namespace {

using namespace testing;

TEST(ResNet50, ParametersAndMacsMatchTorchvision) {
  Graph<> g = resnet50();
  EXPECT_NO_THROW(validate(g));
  EXPECT_EQ(trainable_parameters(g), 25'557'032);
  EXPECT_LT(relative_error(graph_stats(g).macs, 4.09e9), 0.02);
}

TEST(ResNeXt50, ParametersAndMacsMatchTorchvision) {
  Graph<> g = resnext50_32x4d();
  EXPECT_NO_THROW(validate(g));
  EXPECT_EQ(trainable_parameters(g), 25'028'904);
  EXPECT_LT(relative_error(graph_stats(g).macs, 4.23e9), 0.02);
}

TEST(ResNet50, HasSixteenBottlenecksWithFourDownsamples) {
  Graph<> g = resnet50();
  EXPECT_EQ(count_nodes(g, [](auto const& n) { return n.template is<Add>() && n.name.ends_with("/add"); }), 16u);
  EXPECT_EQ(count_nodes(g, [](auto const& n) { return n.template is<Conv2D>() && n.name.ends_with("downsample/conv"); }), 4u);
  EXPECT_EQ(count_ops<Conv2D>(g), 1u + 16 * 3 + 4);
  EXPECT_EQ(graph_stats(g).width, 2u);  // the main path beside a shortcut
}

TEST(ResNeXt50, ThreeByThreeConvsAreGroupedBy32) {
  Graph<> g = resnext50_32x4d();
  std::size_t grouped = count_nodes(g, [&](auto const& n) {
    auto const* c = n.template get_if<Conv2D>();
    return c && c->groups == 32 && g.desc(n.inputs[1]).shape[2] == 3;
  });
  EXPECT_EQ(grouped, 16u);
  // Stage 1's grouped conv: 128 channels in 32 groups of 4.
  EXPECT_EQ(g.desc(node_named(g, "layer1.0/conv2").inputs[1]).shape, (Shape{128, 4, 3, 3}));
}

TEST(ResNet50, RunsOnTheReferenceExecutor) {
  expect_runs(resnet50({.batch = 2, .resolution = 112, .weight_seed = 3}), Shape{2, 1000});
}

TEST(ResNeXt50, RunsOnTheReferenceExecutor) {
  expect_runs(resnext50_32x4d({.resolution = 112, .weight_seed = 4}), Shape{1, 1000});
}

}  // namespace
}  // namespace autograph::models
