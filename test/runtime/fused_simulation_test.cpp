// The simulator prices a FusedAttention as one kernel: one launch, one span on the timeline,
// the roofline's FlashAttention time (cost/roofline.hpp), where the unfused attention of the
// same shapes is four kernels with the scores written and read between them.
#include <gtest/gtest.h>

#include "autograph/cost/roofline.hpp"
#include "autograph/graph/builder.hpp"
#include "autograph/graph/stats.hpp"
#include "autograph/runtime/simulated_runtime.hpp"
#include "autograph/schedule/sequential.hpp"

namespace autograph {
namespace {

/// ViT-B/16's attention at batch 1 (12 heads of 64 over 197 tokens), fused or not.
Graph<> attention(bool fused) {
  GraphBuilder<> b;
  Value q = b.input("q", {1, 12, 197, 64}), kt = b.input("kT", {1, 12, 64, 197}), v = b.input("v", {1, 12, 197, 64});
  Value y = fused ? b.add(FusedAttention{0.125f}, {q, kt, v}) : b.matmul(b.softmax(b.scale(b.matmul(q, kt), 0.125f)), v);
  return std::move(b).build({y});
}

TEST(FusedSimulation, FusedAttentionIsOneKernel) {
  SimulatedRuntime<> rt;
  Graph<> fused = attention(true), unfused = attention(false);
  Timeline f = rt.simulate(fused, schedule::sequential(KernelDag(fused)));
  Timeline u = rt.simulate(unfused, schedule::sequential(KernelDag(unfused)));
  ASSERT_EQ(f.kernels.size(), 1u);
  EXPECT_TRUE(fused[f.kernels[0].node].op.is<FusedAttention>());
  EXPECT_EQ(u.kernels.size(), 4u);
  EXPECT_LT(f.total_us, u.total_us);
  // The span is the roofline's estimate of the one kernel, whose time includes one launch latency.
  NodeId id = f.kernels[0].node;
  KernelCost c = RooflineCost(devices::H100::spec).estimate(fused[id].op, input_descs(fused, id), fused[id].outputs);
  EXPECT_GT(c.latency_us, 0.0);
  EXPECT_NEAR(f.kernels[0].end_us - f.kernels[0].start_us, c.us, 1e-9 * c.us);
}

}  // namespace
}  // namespace autograph
