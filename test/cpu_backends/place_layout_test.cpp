// Group costs in the layout the model gives them (cpu/backends/place.hpp): a kernel that reads
// and writes plain is charged the reorders of its 4-D activations; one that takes channels-last
// (oneDNN's convolution, our elementwise chain) is not.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include <autograph/cpu/backends/onednn.hpp>
#include <autograph/cpu/backends/own_kernels.hpp>
#include <autograph/cpu/backends/place.hpp>
#include <autograph/graph/builder.hpp>

namespace autograph::cpu {
namespace {

/// The single op `op_name` of `g` as `B` runs it, with what measure_group_us needs.
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
  auto plain = plain_boundary_tensors(own.op, own.in, own.constant, 1);
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_EQ(plain[0], Shape({1, 16, 20, 20}));  // its input
  EXPECT_EQ(plain[1], Shape({1, 16, 10, 10}));  // its output
}

TEST(PlaceLayout, ChannelsLastKernelsAreChargedNoReorder) {
  auto d = depthwise();
  auto dnn = group_of<backends::OneDnn>(d.graph, d.conv);
  EXPECT_TRUE(plain_boundary_tensors(dnn.op, dnn.in, dnn.constant, 1).empty());
  auto chain = group_of<backends::OwnKernels>(d.graph, d.relu);  // an elementwise chain of one op: any layout
  EXPECT_TRUE(plain_boundary_tensors(chain.op, chain.in, chain.constant, 1).empty());
}

TEST(PlaceLayout, PlainKernelsPayTheirReordersOncePerShape) {
  auto d = depthwise();
  CpuRuntime cpu({.warmup = 1, .budget_ms = 2});
  std::map<std::string, double> reorders;
  auto own = group_of<backends::OwnKernels>(d.graph, d.conv);
  double us = measure_group_us(own.op, own.in, own.constant, cpu, 3, reorders);
  ASSERT_EQ(reorders.size(), 2u);
  EXPECT_TRUE(reorders.contains(Shape({1, 16, 20, 20}).to_string()));
  EXPECT_TRUE(reorders.contains(Shape({1, 16, 10, 10}).to_string()));
  EXPECT_GE(us, reorders.begin()->second + std::next(reorders.begin())->second);
  // A oneDNN group adds none.
  auto dnn = group_of<backends::OneDnn>(d.graph, d.conv);
  measure_group_us(dnn.op, dnn.in, dnn.constant, cpu, 3, reorders);
  EXPECT_EQ(reorders.size(), 2u);
}

TEST(PlaceLayout, AllPlainRuntimesChargeNoReorder) {
  auto d = depthwise();
  CpuRuntime cpu({.warmup = 1, .budget_ms = 2, .channels_last = false});
  std::map<std::string, double> reorders;
  auto own = group_of<backends::OwnKernels>(d.graph, d.conv);
  measure_group_us(own.op, own.in, own.constant, cpu, 3, reorders);
  EXPECT_TRUE(reorders.empty());
}

TEST(PlaceLayout, AReorderIsOneCopyThatCosts) {
  CpuRuntime cpu({.warmup = 1, .budget_ms = 5});
  // 3.2 MB each way: a copy this size takes microseconds on any machine; a reorder lowered to
  // nothing (a view) would measure about 0.
  EXPECT_GT(measure_reorder_us(Shape({1, 64, 112, 112}), cpu, 3), 1.0);
}

}  // namespace
}  // namespace autograph::cpu
