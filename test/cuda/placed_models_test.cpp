// Zoo models placed on the CUDA runtime's backends (cuda/backends/) against the reference
// executor on a GPU: the op-level placement by the H200 roofline and each single-backend
// placement (cuDNN, cuBLASLt's pointwise GEMMs, our depthwise and chain kernels wherever they
// can), in FP32 under Nimble's streams; and the measured path (groups timed into a cost
// database, the choice by interleaved comparison) once. Skips without a GPU.
#include <gtest/gtest.h>

#include <filesystem>

#include "autograph/cuda/backends/measure.hpp"
#include "autograph/models/zoo.hpp"
#include "autograph/schedule/nimble.hpp"
#include "cuda_testing.hpp"

namespace autograph::cuda {
namespace {

using testing::gpu;

void expect_placed_matches_reference(PlacedGraph const& placed, std::vector<Tensor> const& in, std::vector<Tensor> const& want,
                                     std::string const& what) {
  auto exe = gpu().compile(placed.graph, schedule::nimble(KernelDag(placed.graph)), {.check_arena = true}, {.allow_tf32 = false});
  auto got = exe.run(std::span<Tensor const>(in));
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(testing::close(got[i], want[i], 1e-3, what + " FP32"));
}

TEST(CudaPlacedModels, MatchTheReference) {
  AUTOGRAPH_REQUIRE_GPU();
  GroupPricing pricing = roofline_pricing(devices::H200::spec);
  for (char const* name : {"nasnet_a_mobile", "inception_v3", "resnet50", "squeezenet1_1"}) {
    SCOPED_TRACE(name);
    Graph<> g = models::build(name, {.batch = 1, .resolution = 96, .weight_seed = 7});
    auto in = testing::random_inputs(g);
    auto want = ReferenceExecutor<>().run(g, std::span<Tensor const>(in));
    auto op_level = place(AllBackends{}, g, pricing);
    expect_placed_matches_reference(op_level, in, want, std::string(name) + " op-level (" + nodes_per_backend(op_level) + ")");
    for (auto const& s : single_backends(AllBackends{})) {
      auto alone = place(AllBackends{}, g, pricing, {.alone = s.alone});
      expect_placed_matches_reference(alone, in, want, std::string(name) + " " + s.alone + " alone (" + nodes_per_backend(alone) + ")");
    }
  }
}

TEST(CudaPlacedModels, MeasuredPlacementKeepsTheReferenceOutputs) {
  AUTOGRAPH_REQUIRE_GPU();
  auto path = std::filesystem::temp_directory_path() / "autograph-gpu-placement-test-costs.json";
  std::filesystem::remove(path);
  Graph<> g = models::build("squeezenet1_1", {.batch = 1, .resolution = 64, .weight_seed = 7});
  auto in = testing::random_inputs(g);
  auto want = ReferenceExecutor<>().run(g, std::span<Tensor const>(in));
  placement::CostDatabase db(path, cuda_device_name(gpu()));
  auto guarded = place_guarded(AllBackends{}, g, gpu(), measured_pricing(gpu(), db, 3), single_backends(AllBackends{}), 5);
  for (auto const& d : guarded.decisions) std::printf("[ choice   ] %s\n", d.describe().c_str());
  expect_placed_matches_reference(guarded.kept, in, want, "squeezenet1_1 measured placement, kept " + guarded.kept.label);
  placement::CostDatabase again(path, cuda_device_name(gpu()));
  auto second = place(AllBackends{}, g, measured_pricing(gpu(), again, 3));
  EXPECT_EQ(second.costs.measured, 0u) << "a second run measures nothing the database knows";
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace autograph::cuda
