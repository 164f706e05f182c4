// Device: opening a GPU, what it is, its library handles.
#include "autograph/cuda/device.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

#include "autograph/cuda/libraries.hpp"
#include "dnn.hpp"

namespace autograph::cuda {

std::string detail::kernel_module_version_in(std::string const& line) {
  std::istringstream words(line);
  for (std::string w; words >> w;)
    if (std::isdigit(static_cast<unsigned char>(w[0])) && w.find('.') != std::string::npos && w.find_first_not_of("0123456789.") == std::string::npos)
      return w;
  return {};
}

namespace {

std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

/// The NVIDIA kernel module's version ("580.65.06"), read from /proc on Linux; empty elsewhere.
std::string kernel_module_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (!f || !std::getline(f, line)) return {};
  return detail::kernel_module_version_in(line);
}

}  // namespace

std::string DeviceInfo::describe() const {
  return name + " (sm_" + std::to_string(compute_major) + std::to_string(compute_minor) + ", " + std::to_string(sm_count) + " SMs), driver " +
         driver + ", CUDA " + cuda_runtime + ", cuDNN " + cudnn + ", cuBLAS " + cublas;
}

DeviceInfo device_info(int index) {
  if (auto why = gpu_unavailable()) throw CudaError(*why);
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, index), "cudaGetDeviceProperties", "device " + std::to_string(index));
  DeviceInfo info;
  info.index = index;
  info.name = p.name;
  info.compute_major = p.major;
  info.compute_minor = p.minor;
  info.sm_count = p.multiProcessorCount;
  info.memory_bytes = p.totalGlobalMem;
  int driver = 0, runtime = 0;
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  info.cuda_driver_api = cuda_version(driver);
  info.cuda_runtime = cuda_version(runtime);
  info.driver = kernel_module_version();
  if (info.driver.empty()) info.driver = "CUDA " + info.cuda_driver_api;
  info.cudnn = dnn::cudnn_version();
  info.cublas = dnn::cublas_version();
  return info;
}

Device::Device(int index) : index_(index) {
  if (auto why = gpu_unavailable()) throw CudaError(*why);
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (index < 0 || index >= count)
    throw CudaError("no CUDA device " + std::to_string(index) + " (this machine has " + std::to_string(count) + ")");
  make_current();
  info_ = device_info(index);
  libraries_ = std::make_unique<Libraries>();
  check(cudnnCreate(&libraries_->cudnn), "cudnnCreate", info_.name);
  try {
    check(cublasLtCreate(&libraries_->cublaslt), "cublasLtCreate", info_.name);
  } catch (...) {
    (void)cudnnDestroy(libraries_->cudnn);
    throw;
  }
}

Device::~Device() {
  if (!libraries_) return;
  (void)cudaSetDevice(index_);
  if (libraries_->cublaslt) (void)cublasLtDestroy(libraries_->cublaslt);
  if (libraries_->cudnn) (void)cudnnDestroy(libraries_->cudnn);
}

}  // namespace autograph::cuda
