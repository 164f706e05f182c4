#pragma once
// CudaError: a CUDA, cuDNN or cuBLAS call failed, or the CUDA runtime cannot run an op.
// The message names the failing call and, once the error has travelled through the runtime,
// the node it ran for:  "Conv2D 'stem/conv': cudnnConvolutionForward failed: CUDNN_STATUS_BAD_PARAM".
#include <cuda_runtime_api.h>

#include <string>
#include <string_view>

#include "autograph/core/error.hpp"

namespace autograph::cuda {

struct CudaError : Error {
  using Error::Error;
};

/// Throws CudaError("<context>: <call> failed: cudaErrorX (description)") unless `status` is cudaSuccess.
/// Clears the sticky last-error slot for non-sticky errors, so one failed launch does not
/// poison the next check.
inline void check(cudaError_t status, std::string_view call, std::string_view context = {}) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();
  std::string msg;
  if (!context.empty()) msg.append(context).append(": ");
  msg.append(call).append(" failed: ").append(cudaGetErrorName(status)).append(" (").append(cudaGetErrorString(status)).append(")");
  throw CudaError(msg);
}

/// Checks the launch of a kernel just enqueued (configuration errors surface here; faults
/// inside the kernel surface at the next synchronisation).
inline void check_launch(std::string_view kernel, std::string_view context = {}) {
  check(cudaPeekAtLastError(), std::string("launch of ").append(kernel), context);
}

}  // namespace autograph::cuda
