// Host-side parts of the measured-cost tooling, which need no GPU: the cost-table device key,
// and that a profile's JSON is exactly what the cost-table loader reads.
#include <gtest/gtest.h>

#include "autograph/cost/measured_cost.hpp"
#include "autograph/cuda/calibration.hpp"
#include "autograph/cuda/profiler.hpp"

namespace autograph::cuda {
namespace {

// ranks and spearman are tested where they live: test/cost/rank_correlation_test.cpp. The
// names stay reachable as cuda::spearman for the GPU benchmark.
static_assert(requires(std::vector<double> v) { cuda::spearman(v, v); });

TEST(Profiler, DeviceKeysNameTheBuiltInDevices) {
  EXPECT_EQ(cost_device_key("NVIDIA H100 80GB HBM3"), "H100 SXM");
  EXPECT_EQ(cost_device_key("NVIDIA H200"), "H200 SXM");
  EXPECT_EQ(cost_device_key("NVIDIA A100-SXM4-80GB"), "A100 SXM4 80GB");
  EXPECT_EQ(cost_device_key("Tesla V100-SXM2-16GB"), "V100 SXM2");
  EXPECT_EQ(cost_device_key("NVIDIA GeForce RTX 2080 Ti"), "RTX 2080 Ti");
  EXPECT_EQ(cost_device_key("NVIDIA L4"), "NVIDIA L4");
}

TEST(Profiler, JsonIsTheCostTableFormat) {
  ProfileResult r;
  r.device.name = "NVIDIA H100 80GB HBM3";
  r.device.driver = "580.65.06";
  r.device.cuda_runtime = "13.0";
  r.device.cudnn = "9.19.0";
  r.device_key = cost_device_key(r.device.name);
  r.date = utc_now();
  r.replays = 50;
  r.copies = 11;
  // A signature exactly as MeasuredCost forms it for a node.
  AnyOp relu{Relu{}};
  std::vector<TensorDesc> in{{Shape{1, 64, 56, 56}}};
  r.entries.push_back({op_signature(relu, in), 3.25, 2});

  std::string json = r.to_json();
  CostTable t = CostTable::parse(json);
  auto const* e = t.find("H100 SXM", op_signature(relu, in));
  ASSERT_NE(e, nullptr);
  EXPECT_DOUBLE_EQ(e->us, 3.25);
  auto meta = nlohmann::json::parse(json)["measured"];
  EXPECT_EQ(meta["device"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(meta["driver"], "580.65.06");
  EXPECT_EQ(meta["cudnn"], "9.19.0");
  EXPECT_EQ(meta["replays"], 50);
  EXPECT_EQ(meta["occurrences"][op_signature(relu, in)], 2);
  EXPECT_EQ(meta["date"].get<std::string>().size(), 20u);  // 2025-11-22T03:00:00Z

  MeasuredCost cost(t, devices::H100::spec);
  std::vector<TensorDesc> out = relu.infer(in);
  EXPECT_DOUBLE_EQ(cost.estimate(relu, in, out).us, 3.25);
}

}  // namespace
}  // namespace autograph::cuda
