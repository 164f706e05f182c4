#pragma once
// A forward convolution through cuDNN's graph API (backend descriptors): one operation graph
// (conv fprop, FP32 data and accumulation), the engine configurations cuDNN's heuristics offer
// for it, each finalized into an execution plan. Internal to the autograph_cuda library.
//
// Why beside the legacy API (dnn.cpp): cuDNN 9's legacy cudnnFindConvolutionForwardAlgorithm
// reaches only the engines a legacy algorithm maps to. On a lent H200 (2026-11-27,
// benchmark/results/gpu-2026-11-27-evening/) it chose IMPLICIT_PRECOMP_GEMM, FFT_TILING or
// WINOGRAD_NONFUSED for ResNet-50's batch-1 convolutions, 54 us for a 3x3 128-channel 28x28
// layer where PyTorch, through this API, ran Hopper's implicit-GEMM kernels
// (sm90_xmma_fprop_implicit_gemm_..._tf32, after an NCHW -> NHWC transpose) in 14 us.
// dnn::ConvForward measures both and keeps the faster (never slower than the legacy choice).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cudnn.h>

#include "dnn.hpp"

namespace autograph::cuda::dnn {

class ConvEngine {
 public:
  /// Up to `max_plans` execution plans, in the heuristics' order, for y = conv(x, w) of `s`
  /// (NCHW, packed, 16-byte aligned operands), each within `max_workspace` bytes. Engines that
  /// compile at run time (NVRTC) are left out: planning a model must not compile kernels.
  /// Empty when the graph API offers nothing for this shape (or this cuDNN has no graph API):
  /// the caller keeps the legacy algorithm. Never throws for an unsupported shape.
  static std::vector<ConvEngine> candidates(cudnnHandle_t h, ConvShape const& s, std::size_t max_workspace, int max_plans);

  std::size_t workspace_bytes() const;
  /// "engine 28 (heuristics rank 0)", for reports.
  std::string const& name() const;
  /// Enqueues the convolution on the handle's current stream (the caller sets it). @throws CudaError.
  void run(cudnnHandle_t h, float const* x, float const* w, float* y, void* workspace) const;

 private:
  struct Plan;
  std::shared_ptr<Plan const> plan_;
};

}  // namespace autograph::cuda::dnn
