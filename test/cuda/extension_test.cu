// The user kernel of swish_op.hpp and its launch, through nvcc: all a user's .cu file needs of
// the library is the extension point (autograph/cuda/kernel.hpp), and this checks that it and
// what it includes compile under nvcc (range-v3, for one, does not). The test itself is
// extension_test.cpp, compiled by the host compiler: the whole library through nvcc took this
// file 36 s to compile on the project's 2-core machine.
#include <algorithm>

#include "swish_op.hpp"

namespace extension_test {

__global__ void swish_kernel(float const* x, float* y, std::int64_t n, float beta) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    y[i] = x[i] / (1.f + expf(-beta * x[i]));
}

}  // namespace extension_test

void autograph::cuda::Kernel<extension_test::Swish>::lower(extension_test::Swish const& op, Lowering& l) {
  std::int64_t n = l.outputs()[0].numel();
  float beta = op.beta;
  l.launch("swish_kernel", [=](LaunchArgs const& a) {
    unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>((n + 255) / 256, 4096));
    extension_test::swish_kernel<<<blocks, 256, 0, a.stream>>>(a.in[0], a.out[0], n, beta);
    check_launch("swish_kernel");
  });
}
