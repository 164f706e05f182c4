// A user-defined operator with its own CUDA kernel, in a .cu file that includes the CUDA
// runtime (and with it the whole library) through nvcc: the extension point of
// autograph/cuda/kernel.hpp end to end. Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>

#include "autograph/graph/builder.hpp"
#include "autograph/runtime/reference_executor.hpp"
#include "cuda_testing.hpp"

namespace extension_test {  // named: nvcc warns about unreferenced members of anonymous namespaces

using namespace autograph;

/// Swish (SiLU with a slope): y = x * sigmoid(beta * x).
struct Swish {
  static constexpr std::string_view name = "Swish";
  static constexpr Arity arity{1, 1};
  float beta = 1.f;

  auto params() const { return std::tuple{beta}; }
  bool operator==(Swish const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    autograph::detail::check_arity<Swish>(in);
    return {in[0]};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const> out) const { return 4.0 * static_cast<double>(out[0].numel()); }
  std::vector<Tensor> evaluate(std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Tensor y(out[0].shape);
    for (std::int64_t i = 0; i < y.numel(); ++i) {
      float x = in[0].ptr()[i];
      y.mutable_ptr()[i] = x / (1.f + std::exp(-beta * x));
    }
    return {y};
  }
};

__global__ void swish_kernel(float const* x, float* y, std::int64_t n, float beta) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    y[i] = x[i] / (1.f + expf(-beta * x[i]));
}

/// An operator nobody wrote a CUDA kernel for.
struct Unported {
  static constexpr std::string_view name = "Unported";
  static constexpr Arity arity{1, 1};
  auto params() const { return std::tuple{}; }
  bool operator==(Unported const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const { return {in[0]}; }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 1; }
};

}  // namespace extension_test

template <>
struct autograph::cuda::Kernel<extension_test::Swish> {
  static void lower(extension_test::Swish const& op, Lowering& l) {
    std::int64_t n = l.outputs()[0].numel();
    float beta = op.beta;
    l.launch("swish_kernel", [=](LaunchArgs const& a) {
      unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>((n + 255) / 256, 4096));
      extension_test::swish_kernel<<<blocks, 256, 0, a.stream>>>(a.in[0], a.out[0], n, beta);
      check_launch("swish_kernel");
    });
  }
};

namespace extension_test {

using MyOps = extend_t<BuiltinOps, Swish>;
static_assert(cuda::CudaExecutable<Swish> && !cuda::CudaExecutable<Unported>);
static_assert(Runtime<cuda::CudaGraphRuntime, MyOps>);

TEST(CudaExtension, AUserKernelRunsInsideTheCapturedGraph) {
  AUTOGRAPH_REQUIRE_GPU();
  GraphBuilder<MyOps> b;
  Value x = b.input("x", {1, 8, 16, 16});
  Value y = b.add(Swish{1.5f}, {b.conv2d(x, 8, {3, 3})});
  Value z = b.concat({b.add(Swish{0.5f}, {x}), y});  // the user kernel's output written in place into the concat
  Graph<MyOps> g = std::move(b).build({b.relu(z)});
  fill_random_weights(g, 5);
  std::vector<Tensor> in{Tensor::random({1, 8, 16, 16}, 9)};
  auto want = ReferenceExecutor<MyOps>().run(g, std::span<Tensor const>(in));
  auto& gpu = cuda::testing::gpu();
  auto exe = gpu.compile(g, schedule::nimble(KernelDag(g)), {}, {.allow_tf32 = false});
  auto got = exe.run(std::span<Tensor const>(in));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(cuda::testing::close(got[0], want[0], 1e-4, "conv + Swish + concat"));
  EXPECT_GT(gpu.measure(g), 0.0);
}

}  // namespace extension_test
