#include <autograph/models/squeezenet_ios.hpp>

#include "model_testing.hpp"

namespace autograph::models {
namespace {

using namespace testing;

// The sizes IOS's code gives (python/ios/models/squeezenet.py with ir.py's Conv.weight_shape and
// bias_shape), summed by hand over its 30 convs: stem 96*3*7*7+96 = 14,208; per fire module
// squeeze in*s+s, expands s*9*e+e and s*e+e, bypass in*2e+2e where in != 2e; classifier
// 512*1000+1000 = 513,000. MACs: each conv's weights times its output pixels (112^2 for the stem,
// 55^2, 27^2 and 13^2 for the fire modules between the pools).
TEST(SqueezeNetIos, ParametersAndMacsAsIosCodeBuildsIt) {
  Graph<> g = squeezenet_ios();
  EXPECT_NO_THROW(validate(g));
  EXPECT_EQ(trainable_parameters(g), 1'589'672);
  EXPECT_EQ(graph_stats(g).parameters, 1'589'672);  // no BatchNorm: every weight is trainable
  EXPECT_EQ(graph_stats(g).macs, 1'187'100'160.0);
  EXPECT_EQ(output_shape(g), (Shape{1, 1000}));
}

TEST(SqueezeNetIos, EveryFireModuleAddsABypassAConvOnlyWhereTheChannelsChange) {
  Graph<> g = squeezenet_ios();
  EXPECT_EQ(count_named(g, "/add"), 8u);
  EXPECT_EQ(count_named(g, "/concat"), 8u);
  // fire_complex's `if v1.node.output_shape[0] == v.node.output_shape[0]`: the input's channels
  // (96, 128, 128, 256, 256, 384, 384, 512) against 2 x expand (128, 128, 256, 256, 384, 384, 512,
  // 512): a conv in blocks 2, 4, 7 and 9.
  for (std::string blk : {"block2", "block4", "block7", "block9"})
    EXPECT_EQ(shape_named(g, blk + "/bypass")[1], shape_named(g, blk + "/concat")[1]) << blk;
  EXPECT_EQ(count_named(g, "/bypass"), 4u);
  EXPECT_EQ(count_ops<Conv2D>(g), 1u + 8 * 3 + 4 + 1);
  // Where there is no bypass conv the sum reads the module's input: block3's reads block2's sum.
  auto const& add3 = node_named(g, "block3/add");
  EXPECT_EQ(g[add3.inputs[1].node].name, "block2/add");
  // The expands concatenate 3x3 first (IOS's identity of terms [[v1a], [v1b]]).
  auto const& concat = node_named(g, "block2/concat");
  EXPECT_EQ(g[concat.inputs[0].node].name, "block2/expand3x3_activation");
}

TEST(SqueezeNetIos, PoolsRoundDownAsIosInfersShapes) {
  EXPECT_EQ(shape_named(squeezenet_ios(), "block1/maxpool"), (Shape{1, 96, 55, 55}));
  // At 230 the stem gives 115; floor-mode pools give 57, 28, 13 where ceil mode would give 14.
  Graph<> g = squeezenet_ios({.resolution = 230});
  std::vector<std::int64_t> sides;
  for (NodeId id : g.node_ids())
    if (g[id].is<Pool2D>() && !g[id].get_if<Pool2D>()->global) sides.push_back(g[id].outputs[0].shape[2]);
  EXPECT_EQ(sides, (std::vector<std::int64_t>{57, 28, 13}));
}

TEST(SqueezeNetIos, RunsOnTheReferenceExecutor) {
  expect_runs(squeezenet_ios({.batch = 2, .resolution = 64, .weight_seed = 5}), Shape{2, 1000});
}

}  // namespace
}  // namespace autograph::models
