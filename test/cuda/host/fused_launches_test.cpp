// The fused transformer ops' launches, run on the CPU (host_launches.hpp): FusedAttention's
// one kernel over every broadcast of the batch dimensions and of the mask the op allows, key
// counts that leave a partial tile, both tile configurations, no keys and no head dimension,
// a causal mask, and the head-dimension bound. (A whole fused ViT block: fused_plan_test.cpp.)
// The CPU version of the attention kernel (cpu_kernels.cpp) follows the GPU kernel's tiles
// and online softmax, so the descriptors the lowering computes and the algorithm's rescaling
// are both checked; the .cu kernel body itself needs a GPU (test/cuda/fused_ops_test.cpp).
#include <gtest/gtest.h>

#include <limits>

#include "../test_graphs.hpp"
#include "autograph/cuda/lower.hpp"
#include "host_launches.hpp"

namespace autograph::cuda {
namespace {

using testing::Net;

struct AttentionCase {
  Shape q, kt, v;
  std::optional<Shape> mask;
};

Graph<> attention(AttentionCase const& c, float scale = 0.3f) {
  Net n;
  Value q = n.input(c.q), k = n.input(c.kt), v = n.input(c.v);
  if (c.mask) return n.done({n.op(FusedAttention{scale}, {q, k, v, n.input(*c.mask)})});
  return n.done({n.op(FusedAttention{scale}, {q, k, v})});
}

std::string describe(AttentionCase const& c) {
  return "q " + c.q.to_string() + " kT " + c.kt.to_string() + " v " + c.v.to_string() + (c.mask ? " mask " + c.mask->to_string() : "");
}

TEST(HostFusedLaunches, AttentionOverEveryBroadcast) {
  std::vector<AttentionCase> cases = {
      {{1, 2, 5, 8}, {1, 2, 8, 37}, {1, 2, 37, 6}, {}},                    // two key tiles, the second partial
      {{1, 2, 5, 8}, {1, 2, 8, 37}, {1, 2, 37, 6}, Shape{37}},             // one mask value per key
      {{1, 2, 5, 8}, {1, 2, 8, 37}, {1, 2, 37, 6}, Shape{2, 1, 37}},       // per head, broadcast over queries
      {{1, 2, 5, 8}, {1, 2, 8, 37}, {1, 2, 37, 6}, Shape{5, 1}},           // per query, broadcast over keys
      {{2, 3, 40, 16}, {3, 16, 70}, {1, 70, 16}, Shape{1, 3, 40, 70}},     // batch broadcast: kT per head, v shared; 2 query tiles
      {{4, 8}, {8, 33}, {3, 33, 8}, {}},                                   // v alone has a batch
      {{2, 1, 3, 8}, {1, 4, 8, 9}, {2, 4, 9, 5}, {}},                      // q and kT broadcast against each other
      {{1, 3, 20, 96}, {1, 3, 96, 50}, {1, 3, 50, 128}, Shape{3, 20, 50}},  // the wide-head tiles (16 rows, D and Dv to 128)
      {{2, 3, 0}, {2, 0, 5}, {2, 5, 4}, {}},                               // D = 0: every score 0
      {{2, 3, 4}, {2, 4, 0}, {2, 0, 4}, {}},                               // no keys: zeros
  };
  for (auto const& c : cases) testing::check_launches(attention(c), "FusedAttention " + describe(c), -1.f, 1.f, 1e-5);
}

TEST(HostFusedLaunches, AttentionWithMaskedKeys) {
  // A causal mask (-inf above the diagonal) over 40 keys: the first row sees one key, and the
  // second key tile starts with no finite score in most rows, which the rescaling must survive.
  Net n;
  Shape ms{40, 40};
  std::vector<float> causal(static_cast<std::size_t>(ms.numel()));
  for (std::int64_t i = 0; i < 40; ++i)
    for (std::int64_t j = 0; j < 40; ++j) causal[static_cast<std::size_t>(i * 40 + j)] = j <= i ? 0.f : -std::numeric_limits<float>::infinity();
  Value mask{n.g.add(Weight{{ms}, Tensor(ms, causal).storage(), 1}, {}, "causal"), 0};
  Value y = n.op(FusedAttention{0.25f}, {n.input({2, 40, 16}), n.input({2, 16, 40}), n.input({2, 40, 16}), mask});
  testing::check_launches(n.done({y}), "FusedAttention, causal mask");
}

TEST(HostFusedLaunches, AttentionBeyondTheHeadBoundIsRejected) {
  for (auto [d, dv] : {std::pair<std::int64_t, std::int64_t>{129, 64}, {64, 200}}) {
    Graph<> g = attention({{1, 4, d}, {1, d, 8}, {1, 8, dv}, {}});
    try {
      (void)lower(g, nullptr);
      ADD_FAILURE() << "D = " << d << ", Dv = " << dv << " lowered";
    } catch (CudaError const& e) {
      std::string what = e.what();
      EXPECT_NE(what.find("FusedAttention"), std::string::npos) << what;
      EXPECT_NE(what.find("exceed the fused kernel's bound of 128"), std::string::npos) << what;
      EXPECT_NE(what.find(std::to_string(d > 128 ? d : dv)), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace autograph::cuda
