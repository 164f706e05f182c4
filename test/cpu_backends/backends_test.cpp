// Each CPU backend's kernels against the reference executor: the placement made to prefer one
// backend (synthetic costs), the placed graph compiled on the CPU runtime.
#include <gtest/gtest.h>

#include <autograph/cpu/backends/blas.hpp>
#include <autograph/cpu/backends/onednn.hpp>
#include <autograph/cpu/backends/own_kernels.hpp>
#include <autograph/cpu/backends/place.hpp>
#include <autograph/graph/builder.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/runtime/reference_executor.hpp>

#include "../cpu/matches_reference.hpp"

namespace autograph::cpu {
namespace {

using backends::Blas;
using backends::OneDnn;
using backends::OwnKernels;
using All = Backends<OneDnn, Blas, OwnKernels>;

static_assert(CpuBackend<OneDnn> && CpuBackend<Blas> && CpuBackend<OwnKernels>);
static_assert(RewritingCpuBackend<OneDnn> && !RewritingCpuBackend<Blas>);

std::vector<Tensor> inputs_of(Graph<> const& g, std::uint64_t seed) {
  std::vector<Tensor> r;
  for (NodeId n : g.inputs()) r.push_back(Tensor::random(g[n].outputs[0].shape, seed + n));
  return r;
}

/// The placement where `preferred`'s groups cost 1 each and every other group 10 per op: the
/// preferred backend runs what it can, in groups as large as it can.
placement::Placement prefer(Graph<> const& g, std::string const& preferred) {
  GraphFacts<BuiltinOps> facts(g);
  auto reg = All::registry<BuiltinOps>();
  auto cands = placement::generate_candidates(facts, reg).candidates;
  std::vector<std::string> names;
  for (auto const& e : reg) names.push_back(e.name);
  return placement::op_level_dp(facts, std::span<placement::Candidate const>(cands), names, [&](placement::Candidate const& c) {
    return names[c.backend] == preferred ? 1.0 : 10.0 * static_cast<double>(c.group.size());
  });
}

/// Runs `g` placed as `p` on the CPU runtime (one stream) and compares with the reference.
::testing::AssertionResult runs_like_reference(Graph<> const& g, placement::Placement const& p, double tolerance = 1e-5,
                                               ExecOptions const& options = {}) {
  auto placed = placed_graph(All{}, g, p);
  CpuRuntime cpu;
  auto in = inputs_of(g, 3);
  auto exe = cpu.compile(placed, schedule::sequential(KernelDag(placed)), options);
  return test::matches(exe.run(in), ReferenceExecutor<>().run(g, in), tolerance);
}

/// BackendGroup nodes of the placed graph run by `backend`.
std::size_t group_nodes(Graph<> const& g, placement::Placement const& p, std::string const& backend) {
  auto placed = placed_graph(All{}, g, p);
  std::size_t n = 0;
  for (NodeId id : placed.node_ids())
    if (auto const* bg = placed[id].get_if<BackendGroup>()) n += bg->body->backend == backend;
  return n;
}

std::size_t count_backend(placement::Placement const& p, std::string const& backend) {
  std::size_t n = 0;
  for (auto const& pg : p.groups) n += p.backend_of(pg) == backend;
  return n;
}

TEST(CpuBackends, OneDnnFusesTheActivationIntoTheConvolution) {
  GraphBuilder b;
  auto x = b.input("x", {1, 8, 12, 12});
  auto y = b.relu(b.conv2d(x, 16, {3, 3}, {.bias = true}));
  auto g = std::move(b).build({b.sigmoid(b.matmul(b.reshape(y, {16, 144}), b.weight("m", {144, 10})))});
  fill_random_weights(g, 1);
  auto p = prefer(g, "onednn");
  auto placed = placed_graph(All{}, g, p);
  std::size_t fused = 0;
  for (NodeId n : placed.node_ids()) {
    if (auto const* c = placed[n].get_if<Conv2D>()) fused += c->act == Activation::relu;
    if (auto const* m = placed[n].get_if<MatMul>()) fused += m->act == Activation::sigmoid;
  }
  EXPECT_EQ(fused, 2u);
  EXPECT_TRUE(runs_like_reference(g, p));
}

TEST(CpuBackends, BlasConvolutionsMatchTheReference) {
  GraphBuilder b;
  auto x = b.input("x", {2, 6, 11, 9});
  auto y = b.relu(b.conv2d(x, 8, {3, 3}, {.stride = {2, 1}, .pad = std::array<std::int64_t, 4>{1, 0, 2, 1}, .bias = true}));
  auto z = b.conv2d(y, 8, {1, 1});                            // 1x1: the image is its own columns
  auto u = b.conv2d(z, 8, {3, 3}, {.dilation = {2, 2}, .groups = 2});  // grouped, dilated
  auto g = std::move(b).build({u});
  fill_random_weights(g, 2);
  auto p = prefer(g, "blas");
  EXPECT_EQ(count_backend(p, "blas"), 3u);
  EXPECT_EQ(p.groups.size(), 3u);  // the Relu fused
  EXPECT_EQ(group_nodes(g, p, "blas"), 3u);
  EXPECT_TRUE(runs_like_reference(g, p));
}

TEST(CpuBackends, BlasSplitsItsProductsOverTheKernelsThreads) {
  // 24 x 24 pixels: two column blocks on two threads; 4 groups: one task per group.
  GraphBuilder b;
  auto x = b.input("x", {2, 8, 24, 24});
  auto y = b.sigmoid(b.conv2d(x, 16, {3, 3}, {.bias = true}));
  auto z = b.conv2d(y, 16, {1, 1}, {.groups = 4});
  auto g = std::move(b).build({z});
  fill_random_weights(g, 4);
  auto p = prefer(g, "blas");
  EXPECT_EQ(count_backend(p, "blas"), 2u);
  // Every core per kernel: these kernels are worth one thread by their work (threads_worth.hpp),
  // which would leave the split over threads untested.
  EXPECT_TRUE(runs_like_reference(g, p, 1e-5, {.threads_by_work = false}));
  // OpenBLAS's own pool is off: each sgemm runs on the kernel's thread that calls it.
  EXPECT_EQ(openblas_get_num_threads(), 1);
}

TEST(CpuBackends, BlasMatrixProductsMatchTheReference) {
  // A linear layer over a batch of rows (bias, its ReLU fused), split by columns; a product of
  // a wide activation by a narrow weight, split by rows; and a batched product of equal batch
  // shapes. The broadcast one ([2,5,6] @ [1,6,4]) is not BLAS's: oneDNN runs it.
  GraphBuilder b;
  auto x = b.input("x", {3, 7, 40});
  auto h = b.relu(b.add(MatMul{}, {x, b.weight("w1", {40, 48}), b.weight("b1", {48})}));  // [3,7,48]
  auto rows = b.matmul(b.reshape(h, {21, 48}), b.weight("w2", {48, 5}));         // 21 rows, 5 columns
  auto q = b.input("q", {4, 6, 8});
  auto k = b.input("k", {4, 8, 6});
  auto batched = b.sigmoid(b.matmul(q, k));
  auto broadcast = b.matmul(b.input("u", {2, 5, 6}), b.weight("v", {1, 6, 4}));
  auto g = std::move(b).build({rows, batched, broadcast});
  fill_random_weights(g, 5);
  auto p = prefer(g, "blas");
  EXPECT_EQ(count_backend(p, "blas"), 3u);
  EXPECT_EQ(group_nodes(g, p, "blas"), 3u);  // the ReLU and the sigmoid fused
  EXPECT_TRUE(runs_like_reference(g, p, 1e-5, {.threads_by_work = false}));
}

TEST(CpuBackends, BlasRunsAProductOfZeroDepthAsItsBias) {
  // K = 0: A has no elements to count its rows by; the output is the bias (then the ReLU).
  GraphBuilder b;
  auto y = b.relu(b.add(MatMul{}, {b.input("a", {2, 3, 0}), b.weight("w", {0, 4}), b.weight("bias", {4})}));
  auto g = std::move(b).build({y});
  fill_random_weights(g, 7);
  auto p = prefer(g, "blas");
  EXPECT_EQ(count_backend(p, "blas"), 1u);
  EXPECT_TRUE(runs_like_reference(g, p, 1e-6, {.threads_by_work = false}));
}

TEST(CpuBackends, BlasPointwiseConvolutionsReadAndWriteChannelsLast) {
  // 1x1 convolutions on BLAS around a 3x3 on oneDNN (channels-last): no reorder around them,
  // in every pair of layouts lowering gives (the graph's input and output stay plain).
  GraphBuilder b;
  auto x = b.input("x", {2, 8, 10, 12});
  auto a = b.relu(b.conv2d(x, 12, {1, 1}, {.bias = true}));
  auto c = b.conv2d(a, 16, {3, 3}, {.bias = true});
  auto d = b.conv2d(c, 8, {1, 1});
  auto e = b.conv2d(d, 6, {1, 1}, {.bias = true});
  auto g = std::move(b).build({b.add(b.conv2d(e, 6, {3, 3}), e)});
  fill_random_weights(g, 6);
  GraphFacts<BuiltinOps> facts(g);
  auto reg = All::registry<BuiltinOps>();
  auto cands = placement::generate_candidates(facts, reg).candidates;
  std::vector<std::string> names;
  for (auto const& en : reg) names.push_back(en.name);
  auto p = placement::op_level_dp(facts, std::span<placement::Candidate const>(cands), names, [&](placement::Candidate const& cand) {
    bool pointwise = false;
    for (NodeId n : cand.group.nodes)
      if (g[n].is<Conv2D>()) pointwise = g.desc(g[n].inputs[1]).shape[2] == 1;
    if (names[cand.backend] == "blas") return pointwise ? 1.0 : 100.0;
    return names[cand.backend] == "onednn" ? 5.0 : 100.0;
  });
  EXPECT_EQ(count_backend(p, "blas"), 3u);
  EXPECT_TRUE(runs_like_reference(g, p, 1e-4));
  auto placed = placed_graph(All{}, g, p);
  CpuRuntime cpu;
  auto exe = cpu.compile(placed, schedule::sequential(KernelDag(placed)));
  std::size_t from_cl = 0, to_cl = 0;
  for (NodeId id : placed.node_ids())
    for (auto const& step : exe.steps(id)) {
      from_cl += step.find("pointwise convolution (channels-last ->") != std::string::npos;
      to_cl += step.find("-> channels-last") != std::string::npos;
    }
  EXPECT_GE(from_cl, 1u);  // d reads the oneDNN conv's channels-last output
  EXPECT_GE(to_cl, 1u);    // a writes channels-last for the oneDNN conv
}

TEST(CpuBackends, OwnElementwiseChainAndDepthwiseMatchTheReference) {
  GraphBuilder b;
  auto x = b.input("x", {1, 8, 15, 13}), s = b.input("s", {1, 8, 15, 13});
  auto d = b.conv2d(x, 8, {3, 3}, {.stride = {2, 2}, .groups = 8, .act = Activation::relu, .bias = true});  // depthwise
  auto chain = b.mul(b.sigmoid(b.add(b.relu(x), s)), b.add(Scale{.scale = 0.5f, .shift = 1.f}, {s}));
  auto g = std::move(b).build({d, b.tanh(chain)});
  fill_random_weights(g, 3);
  auto p = prefer(g, "own");
  EXPECT_EQ(count_backend(p, "own"), p.groups.size());
  EXPECT_EQ(p.groups.size(), 2u);  // the depthwise conv, and the 6 elementwise ops in one pass
  EXPECT_EQ(group_nodes(g, p, "own"), 2u);
  EXPECT_TRUE(runs_like_reference(g, p));
}

TEST(CpuBackends, OwnChainsComputeOnChannelsLastNeighboursAndReorderMixedInputs) {
  // c1 is also read by a Reshape, which takes only plain tensors, so c1 stays plain; c2 and the
  // chain's output lie channels-last between the convolutions.
  GraphBuilder b;
  auto x = b.input("x", {1, 8, 10, 10});
  auto c1 = b.conv2d(x, 8, {3, 3}), c2 = b.conv2d(x, 8, {1, 1});
  auto t = b.add(b.relu(c1), c2);
  auto g = std::move(b).build({b.conv2d(t, 4, {3, 3}), b.reshape(c1, {8, 100})});
  fill_random_weights(g, 4);
  auto p = prefer(g, "own");
  auto placed = placed_graph(All{}, g, p);
  auto lowered = lower(placed, LowerOptions{.channels_last = true});
  std::size_t chains = 0;
  for (NodeId id : placed.node_ids()) {
    if (!placed[id].is<BackendGroup>()) continue;
    ++chains;
    auto const* node = lowered->node(id);
    ASSERT_NE(node, nullptr);
    std::vector<Layout> in;
    for (auto v : node->inputs) in.push_back(lowered->layouts[v]);
    EXPECT_EQ(std::ranges::count(in, Layout::channels_last), 1) << "one input channels-last, one plain";
    EXPECT_EQ(lowered->layouts[node->outputs[0]], Layout::channels_last);
  }
  EXPECT_EQ(chains, 1u);
  EXPECT_TRUE(runs_like_reference(g, p));
}

TEST(CpuBackends, OwnChainsFoldBatchNormsPlainAndChannelsLast) {
  // conv -> BatchNorm -> Add(other conv) -> Relu -> conv: the chain between channels-last
  // convolutions; and the same chain read by a Reshape (plain).
  GraphBuilder b;
  auto x = b.input("x", {2, 6, 9, 7});
  auto t = b.relu(b.add(b.batch_norm(b.conv2d(x, 6, {3, 3})), b.conv2d(x, 6, {1, 1})));
  auto g = std::move(b).build({b.conv2d(t, 4, {3, 3}), b.reshape(b.relu(b.batch_norm(x)), {2, 378})});
  fill_random_weights(g, 5);
  auto p = prefer(g, "own");
  EXPECT_EQ(group_nodes(g, p, "own"), 2u);  // BatchNorm+Add+Relu, BatchNorm+Relu
  EXPECT_TRUE(runs_like_reference(g, p));
}

}  // namespace
}  // namespace autograph::cpu
