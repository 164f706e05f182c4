// A user-defined operator with its own CUDA kernel (swish_op.hpp, extension_test.cu) end to
// end: lowered with the built-in ones and run inside the captured graph. Skips without a GPU.
#include <gtest/gtest.h>

#include "autograph/graph/builder.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/runtime/reference_executor.hpp"
#include "cuda_testing.hpp"
#include "swish_op.hpp"

namespace extension_test {

using namespace autograph;

using MyOps = extend_t<BuiltinOps, Swish>;
static_assert(cuda::CudaExecutable<Swish> && !cuda::CudaExecutable<Unported>);
static_assert(Runtime<cuda::CudaGraphRuntime, MyOps>);

/// conv -> Swish(1.5), and Swish(0.5) of the input, concatenated, then ReLU; `swish` adds the
/// Swish to a builder. The convolution comes first, so its weights are the same in every
/// operator set for one seed.
template <class Set, class AddSwish>
Graph<Set> swish_graph(AddSwish swish) {
  GraphBuilder<Set> b;
  Value x = b.input("x", {1, 8, 16, 16});
  Value y = swish(b, b.conv2d(x, 8, {3, 3}), 1.5f);
  Value z = b.concat({swish(b, x, 0.5f), y});  // the user kernel's output written in place into the concat
  Graph<Set> g = std::move(b).build({b.relu(z)});
  fill_random_weights(g, 5);
  return g;
}

TEST(CudaExtension, AUserKernelRunsInsideTheCapturedGraph) {
  AUTOGRAPH_REQUIRE_GPU();
  auto g = swish_graph<MyOps>([](GraphBuilder<MyOps>& b, Value v, float beta) { return b.add(Swish{beta}, {v}); });
  // The expected outputs from the built-in operators' reference executor (compiled once in
  // autograph::defaults; MyOps' own would add 2 s to this file): x * sigmoid(beta * x).
  auto builtin = swish_graph<BuiltinOps>([](GraphBuilder<>& b, Value v, float beta) { return b.mul(v, b.sigmoid(b.scale(v, beta))); });
  std::vector<Tensor> in{Tensor::random({1, 8, 16, 16}, 9)};
  auto want = ReferenceExecutor<>().run(builtin, std::span<Tensor const>(in));
  auto& gpu = cuda::testing::gpu();
  auto exe = gpu.compile(g, schedule::nimble(KernelDag(g)), {}, {.allow_tf32 = false});
  auto got = exe.run(std::span<Tensor const>(in));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(cuda::testing::close(got[0], want[0], 1e-4, "conv + Swish + concat"));
  EXPECT_GT(gpu.measure(g), 0.0);
}

}  // namespace extension_test
