// Graphs placed on the CUDA runtime's backends (cuda/backends/) on the recording CUDA runtime:
// each placed node enqueues the work its backend promises — a depthwise convolution on our
// kernels one depthwise kernel and no cuDNN call, an elementwise chain one kernel, a pointwise
// convolution on cuBLASLt one cublasLtMatmul — and a placed NASNet-A Mobile captures and
// replays legally and race-free (recording.hpp's checker). The measured placement path
// (measure.hpp: groups timed into the cost database, placements compared interleaved) runs
// here too; the fake timings make every verdict meaningless, so only that it runs, what it
// records in the database and that a second run measures nothing are checked.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "../test_graphs.hpp"
#include "autograph/cuda/backends/measure.hpp"
#include "autograph/cuda/backends/placing_runtime.hpp"
#include "autograph/search/optimizer_args.hpp"
#include "autograph/models/zoo.hpp"
#include "autograph/schedule/nimble.hpp"
#include "recording.hpp"

namespace autograph::cuda {
namespace placed_recording_test {

using Kind = recording::Call::Kind;
using testing::Net;

GroupPricing const& h200() {
  static GroupPricing const p = roofline_pricing(devices::H200::spec);
  return p;
}

/// Lowers, captures and replays `g` once under Nimble's streams; the recording's check.
recording::Report record(Graph<PlacedOps> const& g) {
  CudaGraphRuntime rt;
  auto lowered = rt.lower(g, {.random_weights = 1});
  recording::recorder().reset();
  {
    GraphExecutable exe(lowered, schedule::nimble(KernelDag(g)));
    exe.launch();
    exe.synchronize();
  }
  return recording::check(recording::recorder());
}

/// The kernels and library calls recorded inside captures, by node label.
std::map<std::string, std::vector<recording::Call>> captured_work_by_node() {
  std::map<std::string, std::vector<recording::Call>> work;
  bool capturing = false;
  for (auto const& c : recording::recorder().calls()) {
    if (c.kind == Kind::begin_capture) capturing = true;
    if (c.kind == Kind::end_capture) capturing = false;
    if (capturing && (c.kind == Kind::kernel || c.kind == Kind::library) && c.in_node) work[c.node].push_back(c);
  }
  return work;
}

bool contains(std::string const& s, std::string_view part) { return s.find(part) != std::string::npos; }

TEST(RecordingPlaced, DepthwiseOnOurKernelsLaunchesOurKernelAndNoCudnnCall) {
  Net n;
  Value x = n.input({1, 16, 28, 28});
  NodeId dw = n.g.add(Conv2D{.stride = {2, 2}, .pad = {1, 1, 2, 2}, .groups = 16, .act = Activation::relu}, {x, n.weight({16, 1, 5, 5}), n.weight({16})});
  NodeId pw = n.g.add(Conv2D{}, {Value{dw, 0}, n.weight({24, 16, 1, 1})});
  Graph<> g = n.done({{pw, 0}});
  auto placed = place(AllBackends{}, g, h200(), {.alone = "own"});
  auto report = record(placed.graph);
  EXPECT_TRUE(report.ok()) << report.to_string();
  std::size_t depthwise = 0, cudnn = 0, library = 0;
  for (auto const& [node, calls] : captured_work_by_node())
    for (auto const& c : calls) {
      depthwise += c.kind == Kind::kernel && contains(c.name, "depthwise_kernel");
      cudnn += c.kind == Kind::library && contains(c.name, "cudnnConvolution");
      library += c.kind == Kind::library;
    }
  EXPECT_EQ(depthwise, 1u);
  EXPECT_LE(cudnn, 1u) << "the depthwise convolution never reaches cuDNN";
  EXPECT_EQ(library, 1u) << "the pointwise convolution runs on a library (cuDNN or cuBLASLt) when our kernels run alone";

  auto on_cudnn = place(AllBackends{}, g, h200(), {.alone = "cudnn"});
  ASSERT_TRUE(record(on_cudnn.graph).ok());
  depthwise = cudnn = 0;
  for (auto const& [node, calls] : captured_work_by_node())
    for (auto const& c : calls) {
      depthwise += c.kind == Kind::kernel && contains(c.name, "depthwise_kernel");
      cudnn += c.kind == Kind::library && contains(c.name, "cudnnConvolution");
    }
  EXPECT_EQ(depthwise, 0u);
  EXPECT_EQ(cudnn, 2u);
}

TEST(RecordingPlaced, AnElementwiseChainIsOneKernelAndAPointwiseConvOnCublasLtOneMatmul) {
  Net n;
  Value x = n.input({1, 8, 10, 10}), y = n.input({1, 8, 10, 10});
  Value chain = n.op(Relu{}, {n.op(Add{}, {n.op(Sigmoid{}, {x}), n.op(Mul{}, {x, y})})});
  NodeId pw = n.g.add(Conv2D{.act = Activation::relu}, {chain, n.weight({12, 8, 1, 1}), n.weight({12})});
  Graph<> g = n.done({{pw, 0}});
  auto placed = place(AllBackends{}, g, h200(), {.backends = {"cublaslt", "own"}});
  auto report = record(placed.graph);
  EXPECT_TRUE(report.ok()) << report.to_string();
  std::size_t chains = 0, other_kernels = 0, matmuls = 0, cudnn = 0;
  for (auto const& [node, calls] : captured_work_by_node())
    for (auto const& c : calls) {
      if (c.kind == Kind::kernel) (contains(c.name, "chain_kernel") ? chains : other_kernels) += 1;
      matmuls += c.kind == Kind::library && contains(c.name, "cublasLtMatmul");
      cudnn += c.kind == Kind::library && contains(c.name, "cudnn");
    }
  EXPECT_EQ(chains, 1u) << "sigmoid, mul, add and relu in one pass";
  EXPECT_EQ(matmuls, 1u);
  EXPECT_EQ(cudnn, 0u);
  EXPECT_EQ(other_kernels, 1u) << "the bias and ReLU after the pointwise GEMM: one bias_activation kernel";
}

TEST(RecordingPlaced, APointwiseConvAndItsReluOnCublasLtAreOneMatmulWithTheReluInItsEpilogue) {
  Net n;
  NodeId pw = n.g.add(Conv2D{}, {n.input({1, 8, 10, 10}), n.weight({12, 8, 1, 1})});
  Graph<> g = n.done({n.op(Relu{}, {Value{pw, 0}})});
  auto placed = place(AllBackends{}, g, h200(), {.alone = "cublaslt"});
  ASSERT_EQ(placed.placement.groups.size(), 1u);
  EXPECT_EQ(placed.placement.groups[0].pattern, "pointwise-conv-gemm");
  auto report = record(placed.graph);
  EXPECT_TRUE(report.ok()) << report.to_string();
  std::size_t matmuls = 0, kernels = 0;
  for (auto const& [node, calls] : captured_work_by_node())
    for (auto const& c : calls) {
      matmuls += c.kind == Kind::library && contains(c.name, "cublasLtMatmul");
      kernels += c.kind == Kind::kernel;
    }
  EXPECT_EQ(matmuls, 1u);
  EXPECT_EQ(kernels, 0u) << "no bias: the ReLU runs in cuBLASLt's epilogue";
}

TEST(RecordingPlaced, APlacedNasnetMobileCapturesLegallyAndRaceFree) {
  Graph<> g = models::build("nasnet_a_mobile", {.batch = 1, .resolution = 64, .weight_seed = 1});
  for (auto const& s : single_backends(AllBackends{})) {
    auto placed = place(AllBackends{}, g, h200(), {.alone = s.alone});
    auto report = record(placed.graph);
    EXPECT_TRUE(report.ok()) << s.label << ": " << report.to_string();
    EXPECT_GT(report.ordered_pairs, 0u);
  }
  auto placed = place(AllBackends{}, g, h200());
  auto report = record(placed.graph);
  EXPECT_TRUE(report.ok()) << report.to_string();
  EXPECT_GT(report.captured_work, 100u);
}

TEST(RecordingPlaced, MeasuredPlacementRunsAndASecondRunMeasuresNothing) {
  auto path = std::filesystem::temp_directory_path() / "autograph-recording-placement-costs.json";
  std::filesystem::remove(path);
  Graph<> g = models::build("squeezenet1_1", {.batch = 1, .resolution = 32, .weight_seed = 1});
  CudaGraphRuntime gpu;
  std::size_t first = 0;
  {
    placement::CostDatabase db(path, cuda_device_name(gpu));
    auto guarded = place_guarded(AllBackends{}, g, gpu, measured_pricing(gpu, db, 3), single_backends(AllBackends{}), 3);
    for (auto const& c : guarded.contenders) first += c.costs.measured;
    EXPECT_GT(first, 0u);
    EXPECT_EQ(guarded.decisions.size(), 3u);
    auto graph_level = place_graph_level(AllBackends{}, g, guarded.contenders.back(), {&guarded.kept}, gpu, {.budget_seconds = 1, .rounds = 3});
    EXPECT_GT(graph_level.search.measured, 0u);
  }
  placement::CostDatabase again(path, cuda_device_name(gpu));
  EXPECT_GT(again.size(), 0u);
  auto second = place(AllBackends{}, g, measured_pricing(gpu, again, 3));
  EXPECT_EQ(second.costs.measured, 0u) << "every group is in the database";
  std::filesystem::remove(path);
}

using Placing = PlacingCudaRuntime<AllBackends>;
static_assert(OptimizerRuntime<Placing, BuiltinOps> && ComparingRuntime<Placing>, "the Optimizer runs on the placing CUDA runtime");

TEST(RecordingPlaced, ThePlacingRuntimePlacesEachGraphOnceThroughTheDatabase) {
  auto path = std::filesystem::temp_directory_path() / "autograph-recording-placing-runtime-costs.json";
  std::filesystem::remove(path);
  Graph<> g = models::build("squeezenet1_1", {.batch = 1, .resolution = 32, .weight_seed = 1});
  CudaGraphRuntime gpu;
  {
    Placing rt(gpu, {.database = path, .copies = 3, .rounds = 3});
    rt.measure(g);
    rt.measure(g);
    EXPECT_EQ(rt.graphs_placed(), 1u);
    EXPECT_GT(rt.groups_measured(), 0u);
    EXPECT_EQ(rt.compare(g, g).runs, 3u);
    EXPECT_NE(rt.kind().find("placed on cudnn, cublaslt, own"), std::string::npos) << rt.kind();
  }
  Placing again(gpu, {.database = path, .copies = 3, .rounds = 3});
  again.measure(g);
  EXPECT_EQ(again.groups_measured(), 0u) << "every group is in the database";
  std::filesystem::remove(path);
}

}  // namespace placed_recording_test
}  // namespace autograph::cuda
