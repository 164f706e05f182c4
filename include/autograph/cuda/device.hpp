#pragma once
// The GPU the CUDA runtime runs on: whether there is one, what it is, and the library
// handles (cuDNN, cuBLASLt) every lowering and launch on it shares.
#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>

#include "autograph/cuda/error.hpp"

namespace autograph::cuda {

/// Why no GPU can be used (no driver, a driver too old for this CUDA runtime, no device), or
/// nullopt when device 0 can be used. Any error from cudaGetDeviceCount counts as "no GPU".
inline std::optional<std::string> gpu_unavailable() {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("no usable GPU: cudaGetDeviceCount failed: ") + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
  }
  if (count == 0) return std::string("no usable GPU: cudaGetDeviceCount found no CUDA device");
  return std::nullopt;
}

namespace detail {
/// The driver version in the first line of /proc/driver/nvidia/version: the first word made of
/// digits and dots ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul ..." and
/// the open modules' "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  ...");
/// empty when there is none.
std::string kernel_module_version_in(std::string const& line);
}  // namespace detail

/// What a measurement ran on: the device, the driver and the library versions.
struct DeviceInfo {
  int index = 0;
  std::string name;              // "NVIDIA H100 80GB HBM3"
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  std::size_t memory_bytes = 0;
  std::string driver;            // the kernel module's version ("580.65.06") where readable, else the CUDA driver API version
  std::string cuda_driver_api;   // "13.0": the newest CUDA the driver supports
  std::string cuda_runtime;      // "13.0": the runtime this program links
  std::string cudnn;             // "9.19.0"
  std::string cublas;            // "13.0.2"

  /// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs), driver 580.65.06, CUDA 13.0, cuDNN 9.19.0, cuBLAS 13.0.2"
  std::string describe() const;
};

/// One GPU and the library handles bound to it. Not copyable; share it by reference or
/// shared_ptr. Lowering and capturing are single-threaded per Device.
class Device {
 public:
  /// Opens device `index`. @throws CudaError saying why when there is no such usable device.
  explicit Device(int index = 0);
  ~Device();
  Device(Device const&) = delete;
  Device& operator=(Device const&) = delete;

  int index() const { return index_; }
  DeviceInfo const& info() const { return info_; }
  /// Makes this the calling thread's current device (cheap; the runtime calls it on entry).
  void make_current() const { check(cudaSetDevice(index_), "cudaSetDevice", "device " + std::to_string(index_)); }

  /// The cuDNN and cuBLASLt handles (autograph/cuda/libraries.hpp defines the struct).
  struct Libraries;
  Libraries& libraries() { return *libraries_; }

 private:
  int index_;
  DeviceInfo info_;
  std::unique_ptr<Libraries> libraries_;
};

/// DeviceInfo of device `index` (opens no handles). @throws CudaError when it cannot be queried.
DeviceInfo device_info(int index = 0);

}  // namespace autograph::cuda
