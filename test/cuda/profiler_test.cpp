// The profiler on the GPU: one entry per distinct signature, in the format MeasuredCost reads.
// Skips without a GPU.
#include <gtest/gtest.h>

#include "autograph/cost/measured_cost.hpp"
#include "autograph/cost/graph_cost.hpp"
#include "autograph/cuda/profiler.hpp"
#include "autograph/graph/builder.hpp"
#include "cuda_testing.hpp"

namespace autograph::cuda {
namespace {

TEST(CudaProfiler, MeasuresEverySignatureOnce) {
  AUTOGRAPH_REQUIRE_GPU();
  GraphBuilder<> b;
  Value x = b.input("x", {1, 16, 28, 28});
  Value a = b.relu(b.conv2d(x, 16, {3, 3}));
  Value c = b.relu(b.conv2d(x, 16, {3, 3}));  // the same signature as a's conv
  Value y = b.matmul(b.reshape(b.global_avg_pool(b.concat({a, c})), {1, 32}), b.weight("fc", {32, 10}));
  Graph<> g = std::move(b).build({b.softmax(y)});
  auto r = profile(g, testing::gpu());
  // conv, relu, concat, pool, matmul, softmax (Reshape runs no kernel)
  EXPECT_EQ(r.entries.size(), 6u);
  std::size_t nodes = 0;
  for (auto const& e : r.entries) {
    std::printf("[ profile  ] %8.2f us x%zu  %s\n", e.us, e.occurrences, e.signature.c_str());
    EXPECT_GE(e.us, 0.0) << e.signature;
    if (e.signature.starts_with("Concat")) {
      EXPECT_EQ(e.us, 0.0) << "the runtime writes both pieces in place";
    }
    nodes += e.occurrences;
  }
  EXPECT_EQ(nodes, 8u);
  EXPECT_EQ(r.device_key, cost_device_key(testing::gpu().device().info().name));
  EXPECT_EQ(r.replays, 50);

  CostTable table = CostTable::parse(r.to_json());
  EXPECT_EQ(table.size(r.device_key), r.entries.size());
  DeviceSpec spec = devices::H100::spec;  // the roofline fallback's numbers; the table is looked up by name
  spec.name = r.device_key;
  MeasuredCost measured(table, spec);
  (void)node_costs(g, measured);
  EXPECT_EQ(measured.measured_hits(), r.entries.size());
  EXPECT_EQ(measured.roofline_fallbacks(), 0u);
}

// Without a GPU: what the profiler prices without timing.
TEST(CudaProfiler, PricesAConcatWrittenInPlaceAtZero) {
  std::vector<TensorDesc> pieces{TensorDesc{Shape{1, 16, 28, 28}}, TensorDesc{Shape{1, 16, 28, 28}}};
  EXPECT_TRUE(concat_in_place(Concat{1}, pieces));
  EXPECT_EQ(elided_cost_us(AnyOp{Concat{1}}, pieces), 0.0);
  // As the runtime runs it inside a model (producers that are kernels): every piece written
  // in place, no copy left to the Concat.
  GraphBuilder<> b;
  Value x = b.input("x", {1, 16, 28, 28});
  Graph<> g = std::move(b).build({b.concat({b.relu(x), b.sigmoid(x)})});
  auto lowered = lower(g, nullptr);
  EXPECT_EQ(lowered->node(g.outputs()[0].node)->placed, (std::vector<char>{1, 1}));
  // Along the width each piece is 28 ranges of the output: copied, so timed.
  EXPECT_FALSE(concat_in_place(Concat{3}, pieces));
  EXPECT_FALSE(elided_cost_us(AnyOp{Concat{3}}, pieces).has_value());
  // A piece 16 bytes in would not suit a cuDNN producer (256-byte alignment): timed.
  std::vector<TensorDesc> odd{TensorDesc{Shape{1, 4}}, TensorDesc{Shape{1, 64}}};
  EXPECT_FALSE(concat_in_place(Concat{1}, odd));
  EXPECT_FALSE(elided_cost_us(AnyOp{Concat{1}}, odd).has_value());
  // Any other operator is timed.
  EXPECT_FALSE(elided_cost_us(AnyOp{Relu{}}, std::span<TensorDesc const>(pieces).first(1)).has_value());
}

}  // namespace
}  // namespace autograph::cuda
