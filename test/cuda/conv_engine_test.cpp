// cuDNN's graph-API convolution plans (src/cuda/conv_engine.hpp) on a GPU: every plan the
// heuristics offer for a shape, not only the one dnn::ConvForward measures fastest, computes
// the convolution a plain loop computes (TF32 tolerance: the graph API's FP32 engines on
// Ampere and Hopper are TF32 tensor-core kernels). The models' tests (models_test.cpp) run
// whichever path wins inside whole networks; this one reaches the plans that lose there too.
#include <cuda_runtime.h>

#include <cmath>
#include <random>
#include <vector>

#include "../../src/cuda/conv_engine.hpp"
#include "autograph/cuda/libraries.hpp"
#include "cuda_testing.hpp"

namespace autograph::cuda {
namespace {

struct Case {
  char const* what;
  dnn::ConvShape s;
};

dnn::ConvShape shape(int n, int c, int h, int w, int k, int r, int s, int groups, int pad_h, int pad_w, int stride, int dilation) {
  dnn::ConvShape v{n, c, h, w, k, r, s, groups, pad_h, pad_w, stride, stride, dilation, dilation, 0, 0};
  v.out_h = (h + 2 * pad_h - dilation * (r - 1) - 1) / stride + 1;
  v.out_w = (w + 2 * pad_w - dilation * (s - 1) - 1) / stride + 1;
  return v;
}

std::vector<float> reference(dnn::ConvShape const& s, std::vector<float> const& x, std::vector<float> const& w) {
  int cg = s.c / s.groups, kg = s.k / s.groups;
  std::vector<float> y(static_cast<std::size_t>(s.n) * s.k * s.out_h * s.out_w);
  for (int n = 0; n < s.n; ++n)
    for (int k = 0; k < s.k; ++k)
      for (int oh = 0; oh < s.out_h; ++oh)
        for (int ow = 0; ow < s.out_w; ++ow) {
          double acc = 0;
          int g = k / kg;
          for (int c = 0; c < cg; ++c)
            for (int r = 0; r < s.r; ++r)
              for (int q = 0; q < s.s; ++q) {
                int ih = oh * s.stride_h - s.pad_h + r * s.dilation_h, iw = ow * s.stride_w - s.pad_w + q * s.dilation_w;
                if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
                acc += double(x[((std::size_t(n) * s.c + g * cg + c) * s.h + ih) * s.w + iw]) * w[((std::size_t(k) * cg + c) * s.r + r) * s.s + q];
              }
          y[((std::size_t(n) * s.k + k) * s.out_h + oh) * s.out_w + ow] = static_cast<float>(acc);
        }
  return y;
}

struct DeviceFloats {
  float* p = nullptr;
  explicit DeviceFloats(std::size_t n) { check(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(float)), "cudaMalloc", "conv_engine_test"); }
  DeviceFloats(DeviceFloats const&) = delete;
  DeviceFloats& operator=(DeviceFloats const&) = delete;
  ~DeviceFloats() { (void)cudaFree(p); }
};

TEST(CudnnGraphApi, EveryPlanOfferedComputesTheConvolution) {
  AUTOGRAPH_REQUIRE_GPU();
  Device& device = testing::gpu().device();
  cudnnHandle_t h = device.libraries().cudnn;
  check(cudnnSetStream(h, nullptr), "cudnnSetStream");
  std::vector<Case> cases{
      {"3x3, pad 1", shape(1, 32, 14, 14, 64, 3, 3, 1, 1, 1, 1, 1)},
      {"1x1", shape(1, 64, 7, 7, 128, 1, 1, 1, 0, 0, 1, 1)},
      {"3x3, stride 2, no pad", shape(1, 16, 15, 15, 32, 3, 3, 1, 0, 0, 2, 1)},
      {"depthwise 5x5, pad 2", shape(1, 24, 12, 12, 24, 5, 5, 24, 2, 2, 1, 1)},
      {"4 groups 3x3", shape(1, 32, 9, 9, 32, 3, 3, 4, 1, 1, 1, 1)},
      {"dilated 3x3, batch 2", shape(2, 8, 11, 11, 16, 3, 3, 1, 2, 2, 1, 2)},
      {"7x1, pad 3,0", shape(1, 16, 10, 10, 16, 7, 1, 1, 3, 0, 1, 1)},
  };
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::size_t plans = 0;
  for (auto const& [what, s] : cases) {
    SCOPED_TRACE(what);
    std::vector<dnn::ConvEngine> engines = dnn::ConvEngine::candidates(h, s, std::size_t{256} << 20, 16);
    // cuDNN 9 documents FP32 conv fprop engines for compute capability 7.0 and later.
    if (std::string(what) == "3x3, pad 1" && device.info().compute_major >= 7) {
      EXPECT_FALSE(engines.empty()) << "no graph-API plan for a plain 3x3 convolution";
    }
    std::vector<float> x(std::size_t(s.n) * s.c * s.h * s.w), w(std::size_t(s.k) * (s.c / s.groups) * s.r * s.s);
    for (auto& v : x) v = u(rng);
    for (auto& v : w) v = u(rng);
    std::vector<float> want = reference(s, x, w);
    DeviceFloats dx(x.size()), dw(w.size()), dy(want.size());
    check(cudaMemcpy(dx.p, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(dw.p, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    for (auto const& e : engines) {
      SCOPED_TRACE(e.name());
      DeviceFloats work((e.workspace_bytes() + sizeof(float) - 1) / sizeof(float));
      check(cudaMemset(dy.p, 0xff, want.size() * sizeof(float)), "cudaMemset");  // NaNs: a plan that writes nothing fails
      e.run(h, dx.p, dw.p, dy.p, work.p);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      std::vector<float> got(want.size());
      check(cudaMemcpy(got.data(), dy.p, got.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
      double num = 0, den = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        num += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
        den += double(want[i]) * want[i];
      }
      EXPECT_LE(std::sqrt(num / den), 5e-3);  // TF32: 10-bit mantissas, FP32 accumulation
      ++plans;
    }
  }
  std::printf("[gpu] %zu graph-API plans checked over %zu shapes\n", plans, cases.size());
}

}  // namespace
}  // namespace autograph::cuda
