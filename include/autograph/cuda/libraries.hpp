#pragma once
// The cuDNN and cuBLASLt handles of a Device, for kernels that call those libraries
// (the built-in convolutions and matmuls; user kernels may use them too). Including this
// header pulls in cudnn.h and cublasLt.h; everything else in autograph/cuda/ stays free of them.
#include <cublasLt.h>
#include <cudnn.h>

#include <string>
#include <string_view>

#include "autograph/cuda/device.hpp"

namespace autograph::cuda {

struct Device::Libraries {
  cudnnHandle_t cudnn = nullptr;       // the stream is set per call (cudnnSetStream)
  cublasLtHandle_t cublaslt = nullptr; // stateless between calls; the stream is an argument
};

/// Throws CudaError("<context>: <call> failed: CUDNN_STATUS_X") unless status is success.
inline void check(cudnnStatus_t status, std::string_view call, std::string_view context = {}) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  std::string msg;
  if (!context.empty()) msg.append(context).append(": ");
  throw CudaError(msg.append(call).append(" failed: ").append(cudnnGetErrorString(status)));
}

/// Throws CudaError("<context>: <call> failed: CUBLAS_STATUS_X") unless status is success.
inline void check(cublasStatus_t status, std::string_view call, std::string_view context = {}) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::string msg;
  if (!context.empty()) msg.append(context).append(": ");
  throw CudaError(msg.append(call).append(" failed: ").append(cublasLtGetStatusName(status)));
}

}  // namespace autograph::cuda
