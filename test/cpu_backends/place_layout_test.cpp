// Layouts of placed groups (cpu/backends/place.hpp): which values a group's kernel takes and
// gives channels-last (oneDNN's convolution, our elementwise chain: yes; our direct depthwise
// kernel, a view: no), and the reorders the DP charges on edges, measured once per shape.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include <autograph/cpu/backends/onednn.hpp>
#include <autograph/cpu/backends/own_kernels.hpp>
#include <autograph/cpu/backends/place.hpp>
#include <autograph/graph/builder.hpp>

#include "scratch.hpp"

namespace autograph::cpu {
namespace {

/// The single op `n` of `g` as `B` runs it, with its inputs.
struct GroupOf {
  AnyOp op;
  std::vector<TensorDesc> in;
  std::vector<char> constant;
};

template <class B>
GroupOf group_of(Graph<> const& g, NodeId n) {
  GroupGraph gg = group_graph(g, NodeGroup{{n}});
  GroupOf r{detail::group_op(detail::cpu_backend_ops<B>(), std::string(B::name), "test", gg), {}, {}};
  GraphFacts<BuiltinOps> facts(g);
  for (Value v : gg.inputs) {
    r.in.push_back(g.desc(v));
    r.constant.push_back(facts.constant(v.node) ? 1 : 0);
  }
  return r;
}

struct Depthwise {
  Graph<> graph;
  NodeId conv, relu;
};

Depthwise depthwise() {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 16, 20, 20});
  Value c = b.conv2d(x, 16, {3, 3}, {.stride = {2, 2}, .groups = 16});
  Value r = b.relu(c);
  Graph<> g = std::move(b).build({r});
  return {std::move(g), c.node, r.node};
}

TEST(PlaceLayout, OwnDepthwiseReadsAndWritesPlain) {
  auto d = depthwise();
  auto own = group_of<backends::OwnKernels>(d.graph, d.conv);
  auto io = channels_last_io<PlacedOps>(own.op, own.in);
  ASSERT_EQ(io.takes.size(), 2u);  // x and the weight
  EXPECT_FALSE(io.takes[0]);
  EXPECT_FALSE(io.gives);
}

TEST(PlaceLayout, ChannelsLastKernelsTakeAndGiveIt) {
  auto d = depthwise();
  auto dnn = group_of<backends::OneDnn>(d.graph, d.conv);
  auto io = channels_last_io<PlacedOps>(dnn.op, dnn.in);
  EXPECT_TRUE(io.takes[0]);
  EXPECT_TRUE(io.gives);
  auto chain = group_of<backends::OwnKernels>(d.graph, d.relu);  // an elementwise chain of one op: any layout
  auto chain_io = channels_last_io<PlacedOps>(chain.op, chain.in);
  EXPECT_TRUE(chain_io.takes[0]);
  EXPECT_TRUE(chain_io.gives);
}

TEST(PlaceLayout, AViewTakesAndGivesNothing) {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 16, 4, 4});
  Value r = b.reshape(b.relu(x), {1, 16, 2, 8});
  Graph<> g = std::move(b).build({r});
  auto view = group_of<backends::OneDnn>(g, r.node);
  auto io = channels_last_io<PlacedOps>(view.op, view.in);
  EXPECT_FALSE(io.takes[0]);
  EXPECT_FALSE(io.gives);
}

TEST(PlaceLayout, ReordersAreMeasuredOncePerShapeAndKept) {
  auto d = depthwise();
  CpuRuntime cpu(testing::quick());
  GraphFacts<BuiltinOps> facts(d.graph);
  auto path = testing::fresh_db("place_layout_reorders.json");
  placement::CostDatabase db(path, cpu_device_name(cpu));
  auto first = measure_reorders(facts, cpu, db, 3);
  EXPECT_EQ(first.measured, 2u);  // x [1,16,20,20] and the convolution's output [1,16,10,10] (the Relu's is the same shape)
  ASSERT_EQ(first.us.size(), 2u);
  EXPECT_TRUE(first.us.contains(Shape({1, 16, 20, 20}).to_string()));
  EXPECT_TRUE(first.us.contains(Shape({1, 16, 10, 10}).to_string()));
  placement::CostDatabase again(path, cpu_device_name(cpu));
  auto second = measure_reorders(facts, cpu, again, 3);
  EXPECT_EQ(second.measured, 0u);
  EXPECT_EQ(second.us, first.us);
  std::filesystem::remove(path);
}

TEST(PlaceLayout, AReorderIsOneCopyThatCosts) {
  CpuRuntime cpu({.warmup = 1, .budget_ms = 5});
  // 3.2 MB each way: a copy this size takes microseconds on any machine; a reorder lowered to
  // nothing (a view) would measure about 0.
  EXPECT_GT(measure_reorder_us(Shape({1, 64, 112, 112}), cpu, 3), 1.0);
  try {
    measure_reorder_us(Shape({1, 8, 4, 4}), cpu, 3, 0);
    ADD_FAILURE() << "a reorder of no samples was measured";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("samples must be at least 1 (got 0)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace autograph::cpu
