// The CUDA runtime's backends without a GPU (cuda/backends/): our depthwise convolution and
// elementwise chain kernels, placed and lowered for planning, their launches run on the CPU
// versions of the kernels (cpu_kernels.cpp, the .cu kernels' index arithmetic) against the
// reference executor — padding, stride, dilation, channel multiplier, bias and activation
// edge cases; the launch geometry of the new kernels within CUDA's limits; which backend the
// placement picks where the roofline can tell; a group no backend can run is never chosen;
// and a user backend that claims a group it cannot lower is named with the group.
#include <gtest/gtest.h>

#include "../test_graphs.hpp"
#include "autograph/cuda/backends/place.hpp"
#include "autograph/cuda/launch_geometry.hpp"
#include "autograph/models/zoo.hpp"
#include "host_launches.hpp"

namespace autograph::cuda {
namespace {

using testing::Net;

GroupPricing const& h200() {
  static GroupPricing const p = roofline_pricing(devices::H200::spec);
  return p;
}

/// The nodes of `placed` run by `backend` as a BackendGroup of `pattern`.
std::size_t groups_of(PlacedGraph const& placed, std::string_view backend, std::string_view pattern) {
  std::size_t n = 0;
  for (NodeId id : placed.graph.node_ids())
    if (auto const* bg = placed.graph[id].op.get_if<BackendGroup>(); bg && bg->body->backend == backend && bg->body->pattern == pattern) ++n;
  return n;
}

struct DepthwiseCase {
  std::string what;
  std::int64_t channels, multiplier, h, w, r, s;
  Conv2D op;
  bool bias;
};

TEST(OwnCudaDepthwise, MatchesTheReferenceOnItsEdgeCases) {
  std::vector<DepthwiseCase> cases = {
      {"3x3 same", 8, 1, 9, 9, 3, 3, Conv2D{.pad = {1, 1, 1, 1}, .groups = 8}, false},
      {"5x5 stride 2 asymmetric pad (TF SAME)", 6, 1, 11, 11, 5, 5, Conv2D{.stride = {2, 2}, .pad = {1, 1, 2, 2}, .groups = 6}, true},
      {"7x7 stride 2 relu", 4, 1, 15, 13, 7, 7, Conv2D{.stride = {2, 2}, .pad = {3, 3, 3, 3}, .groups = 4, .act = Activation::relu}, true},
      {"dilation 2", 5, 1, 12, 10, 3, 3, Conv2D{.pad = {2, 2, 2, 2}, .dilation = {2, 2}, .groups = 5}, false},
      {"channel multiplier 3, sigmoid", 4, 3, 7, 8, 3, 3, Conv2D{.pad = {1, 1, 1, 1}, .groups = 4, .act = Activation::sigmoid}, true},
      {"unpadded, window wider than stride, 1x5", 3, 2, 6, 9, 1, 5, Conv2D{.stride = {1, 3}, .groups = 3, .act = Activation::tanh}, false},
      {"padding wider than the kernel", 2, 1, 4, 4, 3, 3, Conv2D{.pad = {4, 0, 4, 5}, .groups = 2}, true},
      {"one pixel output from a padded corner", 3, 1, 1, 1, 3, 3, Conv2D{.stride = {2, 2}, .pad = {1, 1, 1, 1}, .groups = 3}, false},
  };
  for (auto const& c : cases) {
    SCOPED_TRACE(c.what);
    for (std::int64_t batch : {1, 2}) {
      Net n;
      std::vector<Value> in{n.input({batch, c.channels, c.h, c.w}), n.weight({c.channels * c.multiplier, 1, c.r, c.s})};
      if (c.bias) in.push_back(n.weight({c.channels * c.multiplier}));
      NodeId conv = n.g.add(c.op, std::span<Value const>(in));
      Graph<> g = n.done({{conv, 0}});
      auto placed = place(AllBackends{}, g, h200(), {.alone = "own"});
      ASSERT_EQ(groups_of(placed, "own", "depthwise-conv"), 1u) << "own alone runs the depthwise convolution with its kernel";
      testing::check_launches(placed.graph, c.what, -1.f, 1.f, 1e-5);
    }
  }
}

TEST(OwnCudaDepthwise, GridStaysWithinCudaLimits) {
  // NASNet-A Large's largest depthwise output, and one beyond 2^31 elements: the grid is
  // capped and the 64-bit grid-stride loop covers the rest (src/cuda/own_backend.cu).
  for (std::int64_t outputs : {std::int64_t{1} * 168 * 83 * 83, (std::int64_t{1} << 31) + 5}) {
    unsigned blocks = kernels::geometry::blocks_for(outputs);
    EXPECT_GE(blocks, 1u);
    EXPECT_LE(static_cast<std::int64_t>(blocks), kernels::geometry::max_grid_x);
    EXPECT_LE(kernels::geometry::block_threads, kernels::geometry::max_threads_per_block);
    std::int64_t stride = kernels::geometry::item_stride(blocks, kernels::geometry::block_threads);
    EXPECT_GE(stride * ((outputs + stride - 1) / stride), outputs) << "the loop reaches every output";
  }
}

TEST(OwnCudaChain, ElementwiseChainsRunAsOneKernelAndMatchTheReference) {
  Net n;
  Value x = n.input({2, 6, 5, 7}), y = n.input({2, 6, 5, 7});
  Value bn = n.op(BatchNorm{.epsilon = 1e-3f}, {x, n.weight({6}, 0.5f, 2.f), n.weight({6}), n.weight({6}), n.weight({6}, 0.5f, 2.f)});
  Value s = n.op(Add{}, {n.op(Sigmoid{}, {bn}), y});
  Value out = n.op(Relu{}, {n.op(Scale{-1.5f, 0.25f}, {n.op(Mul{}, {s, x})})});
  Graph<> g = n.done({out});
  auto placed = place(AllBackends{}, g, h200());
  EXPECT_EQ(groups_of(placed, "own", "elementwise-chain"), 1u) << "the roofline prices one pass below six";
  std::size_t kernels = 0;
  for (NodeId id : placed.graph.node_ids()) kernels += !placed.graph[id].op.is_source();
  EXPECT_EQ(kernels, 1u);
  testing::check_launches(placed.graph, "BatchNorm, sigmoid, add, mul, scale, relu", -2.f, 2.f, 1e-5);
  auto lowered = lower(placed.graph, nullptr);
  std::size_t chain_launches = 0;
  for (auto const& node : lowered->nodes)
    for (auto const& l : node.launches) chain_launches += l.what == "elementwise_chain kernel";
  EXPECT_EQ(chain_launches, 1u);
}

TEST(OwnCudaChain, AChainReadingMoreTensorsThanTheKernelTakesIsNeverChosen) {
  // Six BatchNorms in a row read 1 + 6 * 4 = 25 tensors: can_run() refuses every chain of
  // them reading more than kernels::max_chain_inputs, so the DP never sees one.
  Net n;
  Value v = n.input({1, 4, 3, 3});
  for (int i = 0; i < 6; ++i) v = n.op(BatchNorm{}, {v, n.weight({4}, 0.5f, 2.f), n.weight({4}), n.weight({4}), n.weight({4}, 0.5f, 2.f)});
  Graph<> g = n.done({v});
  auto placed = place(AllBackends{}, g, h200());
  auto const& own = placed.generator.at(2);
  ASSERT_EQ(own.backend, "own");
  EXPECT_GT(own.rejected, 0u);
  for (auto const& pg : placed.placement.groups) {
    std::set<Value> outside;
    for (NodeId m : pg.group.nodes)
      for (Value in : g[m].inputs)
        if (!pg.group.contains(in.node)) outside.insert(in);
    EXPECT_LE(outside.size(), static_cast<std::size_t>(kernels::max_chain_inputs));
  }
  testing::check_launches(placed.graph, "six BatchNorms", -2.f, 2.f, 1e-5);
}

TEST(CudaPlacement, DepthwiseGoesToCudnnOrOwnAndTheRestIsCovered) {
  // NASNet-A Mobile's cells at a small size: every node placed once, convolutions on cuDNN,
  // cuBLASLt or our depthwise kernel, the classifier on cuBLASLt.
  Graph<> g = models::build("nasnet_a_mobile", {.batch = 1, .resolution = 64, .weight_seed = 1});
  auto placed = place(AllBackends{}, g, h200());
  GraphFacts<BuiltinOps> facts(g);
  std::size_t covered = 0;
  for (auto const& pg : placed.placement.groups) covered += pg.group.size();
  EXPECT_EQ(covered, facts.placed_nodes().size());
  for (NodeId id : placed.graph.node_ids()) {
    auto const& op = placed.graph[id].op;
    if (op.is<Conv2D>()) {
      EXPECT_EQ(placed.node_backend[id], "cudnn");
    }
    if (op.is<MatMul>()) {
      EXPECT_EQ(placed.node_backend[id], "cublaslt");
    }
  }
  for (auto const& s : single_backends(AllBackends{})) {
    auto alone = place(AllBackends{}, g, h200(), {.alone = s.alone});
    std::size_t n = 0;
    for (auto const& b : alone.node_backend) n += b == s.alone;
    EXPECT_GT(n, 0u) << s.label;
  }
}

/// A user backend that claims every Relu and cannot lower it.
struct ClaimsRelu {
  static constexpr std::string_view name = "claims-relu";
  template <class Set>
  void declare(placement::BackendSpec<Set>& spec) const {
    spec.add(placement::PatternRule<Set>{.name = "relu",
                                         .valid_op = [](Graph<Set> const& g, NodeId n) { return g[n].op.template is<Relu>(); },
                                         .fusion = [](Graph<Set> const&, std::span<NodeId const>) { return true; },
                                         .max_size = 1});
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, NodeGroup const&) const {
    return rules::ok;
  }
  void lower(Graph<BuiltinOps> const&, Lowering& l) const { l.reject("this backend has no kernels yet"); }
};

TEST(CudaPlacement, AUserBackendThatCannotLowerItsGroupIsNamedWithTheGroup) {
  Net n;
  Value r = n.op(Relu{}, {n.input({2, 8})});
  Graph<> g = n.done({n.op(Tanh{}, {r})});
  auto placed = place(Backends<ClaimsRelu, backends::OwnCudaKernels>{}, g, h200(), {.backends = {"claims-relu", "own"}, .alone = "claims-relu"});
  try {
    (void)lower(placed.graph, nullptr);
    FAIL() << "lowering a group its backend cannot lower must throw";
  } catch (CudaError const& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("backend 'claims-relu'"), std::string::npos) << what;
    EXPECT_NE(what.find("pattern 'relu'"), std::string::npos) << what;
    EXPECT_NE(what.find("this backend has no kernels yet"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace autograph::cuda
