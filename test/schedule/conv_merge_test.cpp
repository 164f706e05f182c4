// IOS's operator merge: the merged convolution computes what the separate ones did (on the
// reference executor), incompatible convolutions are refused, and IOS merges when the runtime
// says merging is faster.
#include <autograph/graph/builder.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/runtime/reference_executor.hpp>
#include <autograph/runtime/runtime.hpp>
#include <autograph/schedule/conv_merge.hpp>
#include <autograph/schedule/ios.hpp>
#include <autograph/schedule/sequential.hpp>
#include <gtest/gtest.h>

namespace autograph {
namespace {

void expect_same_outputs(Graph<> const& a, Graph<> const& b, std::uint64_t seed) {
  ReferenceExecutor<> ex;
  auto x = Tensor::random(a[a.inputs()[0]].outputs[0].shape, seed);
  auto ya = ex.run(a, {x}), yb = ex.run(b, {x});
  ASSERT_EQ(ya.size(), yb.size());
  for (std::size_t i = 0; i < ya.size(); ++i) {
    ASSERT_EQ(ya[i].shape(), yb[i].shape());
    for (std::int64_t j = 0; j < ya[i].numel(); ++j) ASSERT_NEAR(ya[i].data()[j], yb[i].data()[j], 1e-4f) << "output " << i << " element " << j;
  }
}

struct Branches {
  Graph<> g;
  std::vector<NodeId> convs;
  /// Convolutions of `kernels` sizes reading one input (same padding, relu, optional bias),
  /// each followed by its own reader so the split outputs are all used.
  Branches(std::vector<std::int64_t> kernels, bool bias, std::array<std::int64_t, 2> stride = {1, 1}) {
    GraphBuilder b;
    auto x = b.input("x", {1, 6, 9, 9});
    std::vector<Value> outs;
    std::int64_t channels = 3;
    for (auto k : kernels) {
      auto y = b.conv2d(x, channels++, {k, k}, {.stride = stride, .pad = Conv2D::same_pad(k, k), .act = Activation::relu, .bias = bias});
      convs.push_back(y.node);
      outs.push_back(b.sigmoid(y));
    }
    g = std::move(b).build(outs);
    fill_random_weights(g, 11);
  }
};

TEST(ConvMerge, MergedConvolutionsComputeTheSameOutputs) {
  for (bool bias : {false, true})
    for (auto stride : {std::array<std::int64_t, 2>{1, 1}, {2, 2}}) {
      Branches br({1, 3, 5}, bias, stride);
      auto plan = plan_conv_merge(br.g, std::span<NodeId const>(br.convs), weight_only_nodes(br.g));
      ASSERT_TRUE(plan) << "bias " << bias;
      EXPECT_EQ(plan->kernel, (std::array<std::int64_t, 2>{5, 5}));
      EXPECT_EQ(plan->out_channels, (std::vector<std::int64_t>{3, 4, 5}));
      Graph<> merged = br.g;
      auto [conv, split] = merge_convs(merged, std::span<NodeId const>(br.convs), *plan);
      EXPECT_NO_THROW(validate(merged));
      EXPECT_TRUE(merged[conv].is<Conv2D>() && merged[split].is<Split>());
      for (NodeId c : br.convs) EXPECT_FALSE(merged.contains(c));
      expect_same_outputs(br.g, merged, 5);
      // The weight transforms fold into constants: one kernel where there were three.
      auto kernels = kernel_mask(merged);
      EXPECT_EQ(std::ranges::count(kernels, 1), std::ranges::count(kernel_mask(br.g), 1) - 2);
    }
}

TEST(ConvMerge, RefusesConvolutionsThatCannotShareOneKernel) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto y = b.input("y", {1, 4, 8, 8});
  auto same = b.conv2d(x, 4, {3, 3});
  auto other_input = b.conv2d(y, 4, {3, 3});
  auto strided = b.conv2d(x, 4, {3, 3}, {.stride = {2, 2}, .pad = std::array<std::int64_t, 4>{1, 1, 1, 1}});
  auto grouped = b.conv2d(x, 4, {3, 3}, {.groups = 2});
  auto even = b.conv2d(x, 4, {2, 2}, {.pad = std::array<std::int64_t, 4>{0, 0, 1, 1}});
  auto unpadded = b.conv2d(x, 4, {3, 3}, {.pad = std::array<std::int64_t, 4>{0, 0, 0, 0}});
  auto activated = b.conv2d(x, 4, {3, 3}, {.act = Activation::relu});
  auto biased = b.conv2d(x, 4, {3, 3}, {.bias = true});
  auto relu = b.relu(x);
  auto g = std::move(b).build({same, other_input, strided, grouped, even, unpadded, activated, biased, relu});
  auto constant = weight_only_nodes(g);
  auto plan = [&](Value a, Value c) {
    std::vector<NodeId> ids{a.node, c.node};
    return plan_conv_merge(g, std::span<NodeId const>(ids), constant).has_value();
  };
  EXPECT_FALSE(plan(same, other_input));
  EXPECT_FALSE(plan(same, strided));
  EXPECT_FALSE(plan(same, grouped));
  EXPECT_FALSE(plan(same, even));
  EXPECT_FALSE(plan(same, unpadded));
  EXPECT_FALSE(plan(same, activated));
  EXPECT_FALSE(plan(same, biased));
  EXPECT_FALSE(plan(same, relu));
  std::vector<NodeId> one{same.node};  // merging needs at least two
  EXPECT_FALSE(plan_conv_merge(g, std::span<NodeId const>(one), constant));
}

/// A runtime on which kernels never overlap: a stage costs 1 ms per kernel it launches.
struct SerialRuntime {
  std::string kind() const { return "one millisecond per kernel"; }
  double measure(Graph<> const& g) { return measure(g, schedule::sequential(KernelDag(g))); }
  double measure(Graph<> const&, Schedule const& s) const { return static_cast<double>(s.num_kernels()); }
};
static_assert(Runtime<SerialRuntime>);

TEST(ConvMerge, IosMergesWhenTheRuntimeSaysItIsFasterAndKeepsTheOutputs) {
  Branches br({1, 3, 3, 5}, true);
  SerialRuntime rt;
  auto r = schedule::Ios{}.run(br.g, rt);
  EXPECT_EQ(r.stats.merges, 1u);
  ASSERT_FALSE(r.stages.empty());
  EXPECT_EQ(r.stages.front().kind, schedule::IosStage::Kind::merge);
  EXPECT_EQ(r.stages.front().groups, (std::vector<std::vector<NodeId>>{{r.stages.front().groups[0][0]}}));  // the split is a view
  EXPECT_DOUBLE_EQ(r.stats.estimated_ms, 1 + 4);  // the merged conv, then the four sigmoids (up to 3 per group, 8 groups: one stage)
  EXPECT_NO_THROW(validate(r.graph));
  KernelDag dag(r.graph);
  EXPECT_NO_THROW(check_schedule(dag, r.schedule));
  expect_same_outputs(br.g, r.graph, 9);
  auto off = schedule::Ios{{.operator_merge = false}}.run(br.g, rt);
  EXPECT_EQ(off.stats.merges, 0u);
  EXPECT_DOUBLE_EQ(off.stats.estimated_ms, 8);
}

TEST(ConvMerge, IosMergeOnlyRunsSeveralGroupsOnlyWhenMerged) {
  // IOS-Merge (concurrent off): the four convolutions still merge, but the four sigmoids, which
  // IOS-Both runs side by side in one stage, now take a stage each.
  Branches br({1, 3, 3, 5}, true);
  SerialRuntime rt;
  auto r = schedule::Ios{{.concurrent = false}}.run(br.g, rt);
  EXPECT_EQ(r.stats.merges, 1u);
  for (auto const& st : r.stages) {
    if (st.kind == schedule::IosStage::Kind::concurrent) {
      EXPECT_EQ(st.groups.size(), 1u);
    }
  }
  EXPECT_DOUBLE_EQ(r.stats.estimated_ms, 1 + 4);
  EXPECT_EQ(r.stages.size(), 1u + 4);
  KernelDag dag(r.graph);
  EXPECT_NO_THROW(check_schedule(dag, r.schedule));
  expect_same_outputs(br.g, r.graph, 9);
}

TEST(ConvMerge, AReplayedPlanMergesTheSameConvolutionsInAnotherGraphOfTheSameNodes) {
  // IOS's plan names the input graph's nodes; replayed on a second build of the same network it
  // merges there what the search merged here, and the outputs stay the network's.
  Branches searched({1, 3, 3, 5}, true);
  SerialRuntime rt;
  auto r = schedule::Ios{}.run(searched.g, rt);
  ASSERT_EQ(r.stats.merges, 1u);
  ASSERT_EQ(r.plan.front().kind, schedule::IosStage::Kind::merge);
  EXPECT_EQ(r.plan.front().groups.size(), 4u);  // the plan keeps the four convolutions of the input graph
  Branches other({1, 3, 3, 5}, true);
  auto replayed = schedule::Ios::replay(other.g, std::span<schedule::IosStage const>(r.plan));
  EXPECT_EQ(replayed.stats.merges, 1u);
  EXPECT_EQ(replayed.stages.size(), r.stages.size());
  KernelDag dag(replayed.graph);
  EXPECT_NO_THROW(check_schedule(dag, replayed.schedule));
  EXPECT_EQ(replayed.schedule.num_kernels(), r.schedule.num_kernels());
  expect_same_outputs(other.g, replayed.graph, 9);
}

}  // namespace
}  // namespace autograph
