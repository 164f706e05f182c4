#include <autograph/models/nasnet.hpp>

#include "model_testing.hpp"

namespace autograph::models {
namespace {

using namespace testing;

// Reference sizes. The NASNet paper (Table 2) gives NASNet-A (6 @ 4032) 88.9 M parameters and
// 23.8 G mult-adds at 331x331, NASNet-A (4 @ 1056) 5.3 M parameters and 564 M mult-adds at 224.
// Keras' NASNetLarge / NASNetMobile (ported from the TF-slim checkpoints, 1000 classes) report
// exact counts: Large 88,949,818 weights of which 88,753,150 trainable, Mobile 5,326,716 of
// which 5,289,978 trainable; the difference is the BatchNorm moving means and variances.

TEST(NasNetALarge, ParametersMatchTheReferenceExactly) {
  Graph<> g = nasnet_a_large();
  EXPECT_NO_THROW(validate(g));
  auto s = graph_stats(g);
  EXPECT_EQ(s.trainable_parameters, 88'753'150);
  EXPECT_EQ(s.parameters, 88'949'818);
  EXPECT_LT(relative_error(static_cast<double>(s.trainable_parameters), 88.9e6), 0.02);
}

TEST(NasNetAMobile, ParametersAndMacsMatchTheReference) {
  Graph<> g = nasnet_a_mobile();
  EXPECT_NO_THROW(validate(g));
  auto s = graph_stats(g);
  EXPECT_EQ(s.trainable_parameters, 5'289'978);
  EXPECT_EQ(s.parameters, 5'326'716);
  EXPECT_LT(relative_error(static_cast<double>(s.trainable_parameters), 5.3e6), 0.02);
  EXPECT_LT(relative_error(s.macs, 564e6), 0.02);
}

TEST(NasNetALarge, MacsAt331MatchThePaper) {
  EXPECT_LT(relative_error(graph_stats(nasnet_a_large({.resolution = 331})).macs, 23.8e9), 0.02);
}

/// Cells end in "<cell>/cell_output/concat".
std::size_t cells(Graph<> const& g, std::string const& prefix) {
  return count_nodes(g, [&](auto const& n) { return n.name.starts_with(prefix) && n.name.ends_with("/cell_output/concat"); });
}

TEST(NasNetALarge, EighteenNormalAndTwoReductionCells) {
  Graph<> g = nasnet_a_large();
  EXPECT_EQ(cells(g, "cell_stem_"), 2u);
  EXPECT_EQ(cells(g, "reduction_cell_"), 2u);
  EXPECT_EQ(cells(g, "cell_") - cells(g, "cell_stem_"), 18u);
  // A normal cell holds 5 separable ops, each two depthwise + pointwise pairs; a reduction cell
  // 5 as well (5x5, 7x7, 7x7, 5x5, 3x3). 22 cells x 5 x 2 depthwise convs in all.
  std::size_t depthwise = count_nodes(g, [&](auto const& n) {
    auto const* c = n.template get_if<Conv2D>();
    return c && c->groups > 1 && c->groups == g.desc(n.inputs[0]).shape[1];
  });
  EXPECT_EQ(depthwise, 22u * 5 * 2);
  // The penultimate layer has 4032 filters at 7x7.
  EXPECT_EQ(shape_named(g, "cell_17/cell_output/concat"), (Shape{1, 4032, 7, 7}));
}

TEST(NasNetAMobile, TwelveNormalAndTwoReductionCells) {
  Graph<> g = nasnet_a_mobile();
  EXPECT_EQ(cells(g, "reduction_cell_"), 2u);
  EXPECT_EQ(cells(g, "cell_") - cells(g, "cell_stem_"), 12u);
  EXPECT_EQ(shape_named(g, "cell_11/cell_output/concat"), (Shape{1, 1056, 7, 7}));
}

TEST(NasNet, SamePaddingIsTensorFlowsAsymmetricOne) {
  using detail::tf_same_padding;
  EXPECT_EQ(tf_same_padding(111, 5, 2), (std::array<std::int64_t, 2>{2, 2}));  // 56 outputs need 4 rows of padding
  EXPECT_EQ(tf_same_padding(56, 5, 2), (std::array<std::int64_t, 2>{1, 2}));   // odd total: the extra one goes after
  EXPECT_EQ(tf_same_padding(56, 3, 2), (std::array<std::int64_t, 2>{0, 1}));
  EXPECT_EQ(tf_same_padding(28, 7, 1), (std::array<std::int64_t, 2>{3, 3}));
  // Every reduction halves the grid rounding up, as TF's SAME does: 224 -> 111 -> 56 -> 28 -> 14 -> 7.
  Graph<> g = nasnet_a_mobile();
  std::vector<std::int64_t> sides;
  for (NodeId id : g.node_ids())
    if (g[id].name.ends_with("/cell_output/concat") &&
        (g[id].name.starts_with("cell_stem_") || g[id].name.starts_with("reduction_cell_")))
      sides.push_back(g[id].outputs[0].shape[2]);
  EXPECT_EQ(sides, (std::vector<std::int64_t>{56, 28, 14, 7}));
}

TEST(NasNetAMobile, RunsOnTheReferenceExecutor) {
  expect_runs(nasnet_a_mobile({.resolution = 96, .weight_seed = 21}), Shape{1, 1000});
}

TEST(NasNetALarge, RunsOnTheReferenceExecutor) {
  // 64x64 keeps the sanitizer build quick; every cell still runs (the last stage at 2x2).
  expect_runs(nasnet_a_large({.resolution = 64, .weight_seed = 22}), Shape{1, 1000});
}

}  // namespace
}  // namespace autograph::models
