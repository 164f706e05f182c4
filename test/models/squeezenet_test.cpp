#include <autograph/models/squeezenet.hpp>

#include "model_testing.hpp"

namespace autograph::models {
namespace {

using namespace testing;

TEST(SqueezeNet11, ParametersAndMacsMatchTorchvision) {
  Graph<> g = squeezenet1_1();
  EXPECT_NO_THROW(validate(g));
  EXPECT_EQ(trainable_parameters(g), 1'235'496);
  EXPECT_EQ(graph_stats(g).parameters, 1'235'496);  // no BatchNorm: every weight is trainable
  EXPECT_LT(relative_error(graph_stats(g).macs, 0.35e9), 0.02);
}

TEST(SqueezeNet11, EightFireModulesAndCeilModePools) {
  Graph<> g = squeezenet1_1();
  EXPECT_EQ(count_named(g, "/concat"), 8u);
  EXPECT_EQ(count_ops<Conv2D>(g), 1u + 8 * 3 + 1);
  // At 224 ceil and floor mode agree (111 -> 55 -> 27 -> 13); at 230 they differ: the conv gives
  // 114, then ceil-mode pools give 57, 28, 14 where floor mode would give 56, 27, 13.
  std::vector<std::int64_t> sides;
  Graph<> h = squeezenet1_1({.resolution = 230});
  for (NodeId id : h.node_ids())
    if (h[id].is<Pool2D>() && !h[id].get_if<Pool2D>()->global) sides.push_back(h[id].outputs[0].shape[2]);
  EXPECT_EQ(sides, (std::vector<std::int64_t>{57, 28, 14}));
}

TEST(SqueezeNet11, RunsOnTheReferenceExecutor) {
  expect_runs(squeezenet1_1({.batch = 2, .weight_seed = 5}), Shape{2, 1000});
}

}  // namespace
}  // namespace autograph::models
