// Every benchmark model of the zoo on the GPU against the reference executor: FP32 (tight)
// and TF32 (the runtime's default), under Nimble's multi-stream schedule, with the relative
// error and the measured latency reported. Small images keep the CPU reference quick.
// Skips without a GPU.
#include <gtest/gtest.h>

#include "autograph/models/zoo.hpp"
#include "autograph/schedule/nimble.hpp"
#include "cuda_testing.hpp"

namespace autograph::cuda {
namespace {

using testing::gpu;

TEST(SlowCudaModels, MatchTheReference) {
  AUTOGRAPH_REQUIRE_GPU();
  for (auto const& m : models::zoo()) {
    if (m.skip_in_sweeps) continue;  // hundreds of millions of weights, or a deeper copy of an entry run here
    SCOPED_TRACE(std::string(m.name));
    models::ModelOptions o{.batch = 1, .resolution = 96, .weight_seed = 7};
    Graph<> g = m.build(o);
    auto in = testing::random_inputs(g);
    auto want = ReferenceExecutor<>().run(g, std::span<Tensor const>(in));
    Schedule s = schedule::nimble(KernelDag(g));
    for (bool tf32 : {false, true}) {
      auto exe = gpu().compile(g, s, {.check_arena = true}, {.allow_tf32 = tf32});
      auto got = exe.run(std::span<Tensor const>(in));
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_TRUE(testing::close(got[i], want[i], tf32 ? 3e-2 : 1e-3, std::string(m.name) + (tf32 ? " TF32" : " FP32")));
      if (tf32)
        std::printf("[ model    ] %-16s %zu kernels on %zu streams, arena %.1f MiB (%.1f without reuse), %.3f ms\n", std::string(m.name).c_str(),
                    s.num_kernels(), s.num_streams(), static_cast<double>(exe.arena().size) / (1 << 20),
                    static_cast<double>(exe.arena().unshared) / (1 << 20), exe.time(5, 50));
    }
  }
}

}  // namespace
}  // namespace autograph::cuda
