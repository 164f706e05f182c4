#include <autograph/models/zoo.hpp>

#include <set>

#include "model_testing.hpp"

namespace autograph::models {
namespace {

using namespace testing;

TEST(Zoo, ListsTheBenchmarkModelsOnceEach) {
  std::set<std::string_view> names;
  for (auto const& m : zoo()) {
    EXPECT_TRUE(names.insert(m.name).second) << m.name;
    EXPECT_FALSE(m.description.empty());
    EXPECT_EQ(find_model(m.name), &m);
  }
  EXPECT_EQ(names, (std::set<std::string_view>{"inception_v3", "inception_v3_ios", "inception_v3_last_block", "resnet34", "resnet50", "resnext50_32x4d", "nasnet_a_large", "nasnet_a_mobile",
                                                "rnntc_sru", "rnntc_metaflow", "bert", "bert_encoder_8x1024", "squeezenet1_1", "squeezenet_ios", "randwire_ws",
                                                "vit_b_16", "vit_l_16", "vit_h_14", "detr_r50_e3", "detr_r50_e6", "detr_r50_e12",
                                                "setr_naive_base", "setr_naive", "setr_pup"}));
  EXPECT_EQ(find_model("alexnet"), nullptr);
}

TEST(Zoo, UnknownNameListsTheKnownOnes) {
  try {
    build("alexnet");
    FAIL() << "no error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("alexnet"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("inception_v3"), std::string::npos);
  }
}

TEST(Zoo, EveryModelMatchesItsPublishedFiguresWithinTwoPercent) {
  for (auto const& m : zoo()) {
    Graph<> g = build(m.name);
    EXPECT_NO_THROW(validate(g)) << m.name;
    auto s = graph_stats(g);
    EXPECT_EQ(s.trainable_parameters, trainable_parameters(g));
    if (m.published_parameters > 0) {
      EXPECT_LT(relative_error(static_cast<double>(s.trainable_parameters), m.published_parameters), 0.02) << m.name;
    }
    if (m.published_macs > 0) {
      EXPECT_LT(relative_error(s.macs, m.published_macs), 0.02) << m.name;
    }
    EXPECT_EQ(input_shape(g).to_string(), m.input.substr(0, m.input.find(' '))) << m.name;
  }
}

TEST(Zoo, BatchDtypeAndWeightsAreOptions) {
  for (auto const& m : zoo()) {
    Graph<> g = m.build({.batch = 2, .dtype = DType::float16});
    EXPECT_EQ(input_shape(g)[m.name == "rnntc_sru" || m.name == "rnntc_metaflow" ? 1 : 0], 2) << m.name;
    std::size_t shape_only = 0, weights = 0;
    for (NodeId id : g.node_ids()) {
      ASSERT_EQ(g[id].outputs[0].dtype, DType::float16) << m.name << " " << g.label(id);
      // Only buffers computed when the model is built (DETR's position encoding) hold data.
      if (auto const* w = g[id].get_if<Weight>(); w && w->trainable) {
        ++weights;
        shape_only += w->data ? 0 : 1;
      }
    }
    EXPECT_EQ(shape_only, weights) << m.name << ": trained weights are shape-only by default";
  }
  Graph<> filled = build("squeezenet1_1", {.weight_seed = 3});
  EXPECT_EQ(count_nodes(filled, [](auto const& n) { return n.template is<Weight>() && !n.template get_if<Weight>()->data; }), 0u);
  Graph<> again = build("squeezenet1_1", {.weight_seed = 3});
  for (NodeId id : filled.node_ids())
    if (auto const* w = filled[id].get_if<Weight>()) {
      ASSERT_TRUE(again[id].is<Weight>());
      ASSERT_EQ(*w->data, *again[id].get_if<Weight>()->data) << filled.label(id) << ": the same seed gives the same data";
    }
}

TEST(Zoo, ImageModelsBuildAtTheirSmallestResolution) {
  // The smallest side each builder accepts: every layer still has a non-empty output there.
  std::pair<char const*, std::int64_t> const smallest[] = {{"inception_v3", 75},   {"inception_v3_ios", 75},  {"inception_v3_last_block", 1}, {"resnet50", 1},        {"resnext50_32x4d", 1},
                                                            {"nasnet_a_large", 3},   {"nasnet_a_mobile", 3}, {"squeezenet1_1", 25},
                                                            {"squeezenet_ios", 29},  {"randwire_ws", 1},     {"vit_b_16", 16},
                                                            {"vit_l_16", 16},        {"vit_h_14", 14},       {"detr_r50_e3", 1},
                                                            {"setr_naive_base", 16}, {"setr_pup", 16}};
  for (auto [name, side] : smallest) {
    EXPECT_NO_THROW(build(name, {.resolution = side})) << name;
    EXPECT_THROW(build(name, {.resolution = side - 1}), Error) << name;
  }
}

TEST(Stats, BatchNormRunningStatisticsAreNotTrainable) {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 4, 3, 3});
  Value y = b.batch_norm(b.conv2d(x, 8, {3, 3}), 1e-5f, "bn");
  Graph<> g = std::move(b).build({y});
  // conv 8*4*3*3 = 288; BN scale + bias 16 trainable, mean + var 16 not.
  EXPECT_EQ(graph_stats(g).parameters, 288 + 32);
  EXPECT_EQ(trainable_parameters(g), 288 + 16);
  std::size_t stats = 0;
  for (NodeId id : g.node_ids()) stats += is_running_statistic(g, id) ? 1 : 0;
  EXPECT_EQ(stats, 2u);
}

TEST(Stats, BuffersAreNotTrainable) {
  // A constant computed at build time and a frozen BatchNorm: buffers (PyTorch's register_buffer).
  GraphBuilder<> b;
  Value x = b.input("x", {1, 4, 3, 3});
  Value y = b.add(x, b.buffer("pos", Tensor(Shape{1, 4, 3, 3})), "with_pos");
  Shape c{4};
  y = b.add(BatchNorm{1e-5f}, {y, b.buffer("s", c), b.buffer("b", c), b.buffer("m", c), b.buffer("v", c)}, "frozen_bn");
  y = b.linear(y, 2, true, Activation::none, "fc");
  Graph<> g = std::move(b).build({y});
  EXPECT_EQ(graph_stats(g).parameters, 36 + 16 + 3 * 2 + 2);
  EXPECT_EQ(trainable_parameters(g), 3 * 2 + 2);
  EXPECT_EQ(graph_stats(g).trainable_parameters, 3 * 2 + 2);
  EXPECT_FALSE(node_named(g, "pos").get_if<Weight>()->trainable);
  EXPECT_NE(node_named(g, "pos").get_if<Weight>()->data, nullptr);  // a constant keeps its data
}

}  // namespace
}  // namespace autograph::models
