// The CUDA runtime entry points autograph_cuda calls, recorded instead of run (recording.hpp
// says what is recorded and what is faked). Only the symbols the library's objects leave
// undefined (nm -u libautograph_cuda.a) are defined; a new call in the library shows up as a
// link error of cuda_recording_tests.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "autograph/cuda/detail/launch_hook.hpp"
#include "recording.hpp"

namespace autograph::cuda::recording {
namespace {

/// Fake handles: distinct addresses that are never dereferenced.
template <class Handle>
Handle make_handle(std::uintptr_t base) {
  static std::uintptr_t next = 0;
  return reinterpret_cast<Handle>(base + 16 * ++next);
}

/// Device memory: a reserved range of addresses no host allocation uses, handed out in
/// 256-byte aligned blocks with a gap between them (an access past the end of one
/// allocation does not land in the next).
std::uintptr_t next_device_address = std::uintptr_t{1} << 46;

struct LaunchConfig {
  dim3 grid, block;
  std::size_t shared = 0;
  cudaStream_t stream = nullptr;
};
thread_local std::vector<LaunchConfig> launch_configs;

std::map<void const*, std::string>& kernel_names() {
  static std::map<void const*, std::string> names;
  return names;
}

std::size_t captured_work = 0;  // work calls since the last cudaStreamBeginCapture
cudaError_t last_error = cudaSuccess;

void hook(detail::NodeMemory const* node) {
  Recorder& r = recorder();
  r.node_memory_.clear();
  r.in_node_ = node != nullptr;
  r.node_.clear();
  if (!node) return;
  r.node_ = std::string(node->label);
  auto add = [&](detail::NodeMemory::Range const& x, bool write) {
    auto b = reinterpret_cast<std::uintptr_t>(x.ptr);
    r.node_memory_.push_back({{b, b + x.bytes}, write});
  };
  for (auto const& x : node->reads) add(x, false);
  for (auto const& x : node->writes) add(x, true);
}

}  // namespace

void install_launch_hook() { detail::launch_hook = &hook; }

Recorder& recorder() {
  // Never destroyed: the runtime's statics (a CudaGraphRuntime, its constant cache) free
  // device memory after every other static of the program is gone.
  static Recorder& r = *new Recorder;
  install_launch_hook();
  return r;
}

void Recorder::reset() {
  calls_.clear();
  drop_wait_.reset();
  drop_record_.reset();
  waits_seen_ = records_seen_ = 0;
  allocations_at_reset_ = allocations_;
}

Call& Recorder::add(Call::Kind kind, std::string name, cudaStream_t stream) {
  Call& c = calls_.emplace_back();
  c.kind = kind;
  c.name = std::move(name);
  c.stream = stream;
  c.node = node_;
  c.in_node = in_node_;
  if (kind == Call::Kind::kernel || kind == Call::Kind::memcpy_async || kind == Call::Kind::library) {
    c.declared = node_memory_;
    ++captured_work;
  }
  return c;
}

}  // namespace autograph::cuda::recording

using autograph::cuda::recording::Call;
using autograph::cuda::recording::range_of;
using autograph::cuda::recording::recorder;
using Kind = Call::Kind;

extern "C" {

// ---- device and versions (faked) -----------------------------------------------------------

cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (device != 0) return cudaErrorInvalidDevice;
  *p = cudaDeviceProp{};
  std::strncpy(p->name, "NVIDIA H100 80GB HBM3 (recorded)", sizeof(p->name) - 1);
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = 132;
  p->totalGlobalMem = std::size_t{80} << 30;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* v) {
  *v = 13000;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* v) {
  *v = 13000;
  return cudaSuccess;
}
cudaError_t cudaGetLastError() { return std::exchange(autograph::cuda::recording::last_error, cudaSuccess); }
cudaError_t cudaPeekAtLastError() { return autograph::cuda::recording::last_error; }
char const* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    default: return "cudaError (recorded runtime)";
  }
}
char const* cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : "an error of the recording CUDA runtime"; }

// ---- memory (recorded; blocking) -------------------------------------------------------------

cudaError_t cudaMalloc(void** p, std::size_t bytes) {
  auto& next = autograph::cuda::recording::next_device_address;
  std::uintptr_t at = next;
  next += (bytes + 255) / 256 * 256 + 4096;
  *p = reinterpret_cast<void*>(at);
  auto& r = recorder();
  r.add(Kind::malloc, "cudaMalloc").accesses.push_back({{at, at + bytes}, true});
  r.allocations_.push_back({at, at + bytes});
  return cudaSuccess;
}
cudaError_t cudaFree(void* p) {
  auto& r = recorder();
  auto at = reinterpret_cast<std::uintptr_t>(p);
  auto it = std::ranges::find_if(r.allocations_, [&](auto const& a) { return a.begin == at; });
  if (it == r.allocations_.end()) return cudaErrorInvalidValue;
  r.add(Kind::free, "cudaFree").accesses.push_back({*it, true});
  r.allocations_.erase(it);
  return cudaSuccess;
}
cudaError_t cudaMemcpy(void* dst, void const* src, std::size_t bytes, cudaMemcpyKind kind) {
  Call& c = recorder().add(Kind::memcpy, "cudaMemcpy");
  if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice) c.accesses.push_back({range_of(dst, bytes), true});
  if (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice) c.accesses.push_back({range_of(src, bytes), false});
  if (kind == cudaMemcpyDeviceToHost) std::memset(dst, 0, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, void const* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t s) {
  Call& c = recorder().add(Kind::memcpy_async, "cudaMemcpyAsync", s);
  if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice) c.accesses.push_back({range_of(dst, bytes), true});
  if (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice) c.accesses.push_back({range_of(src, bytes), false});
  if (kind == cudaMemcpyDeviceToHost) std::memset(dst, 0, bytes);
  return cudaSuccess;
}

// ---- streams and events (recorded) ------------------------------------------------------------

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int) {
  *s = autograph::cuda::recording::make_handle<cudaStream_t>(std::uintptr_t{1} << 40);
  recorder().add(Kind::stream_create, "cudaStreamCreateWithFlags", *s);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  recorder().add(Kind::stream_destroy, "cudaStreamDestroy", s);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  recorder().add(Kind::stream_synchronize, "cudaStreamSynchronize", s);
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) {
  *e = autograph::cuda::recording::make_handle<cudaEvent_t>(std::uintptr_t{2} << 40);
  recorder().add(Kind::event_create, "cudaEventCreateWithFlags").event = *e;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  recorder().add(Kind::event_destroy, "cudaEventDestroy").event = e;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (recorder().take_drop_record()) return cudaSuccess;
  recorder().add(Kind::event_record, "cudaEventRecord", s).event = e;
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int) {
  if (recorder().take_drop_wait()) return cudaSuccess;
  recorder().add(Kind::stream_wait_event, "cudaStreamWaitEvent", s).event = e;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  recorder().add(Kind::event_synchronize, "cudaEventSynchronize").event = e;
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 1.f;
  return cudaSuccess;
}

// ---- capture and graphs (recorded) ------------------------------------------------------------

cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) {
  recorder().add(Kind::begin_capture, "cudaStreamBeginCapture", s);
  autograph::cuda::recording::captured_work = 0;
  return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* g) {
  recorder().add(Kind::end_capture, "cudaStreamEndCapture", s);
  // The handle carries the number of captured nodes (cudaGraphGetNodes reads it back).
  *g = reinterpret_cast<cudaGraph_t>((std::uintptr_t{3} << 40) + 16 * (autograph::cuda::recording::captured_work + 1));
  return cudaSuccess;
}
cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t* nodes, std::size_t* count) {
  if (nodes) return cudaErrorInvalidValue;  // the library only counts
  *count = (reinterpret_cast<std::uintptr_t>(g) - (std::uintptr_t{3} << 40)) / 16 - 1;
  return cudaSuccess;
}
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* node, cudaGraph_t, cudaGraphNode_t const*, std::size_t) {
  *node = autograph::cuda::recording::make_handle<cudaGraphNode_t>(std::uintptr_t{4} << 40);
  return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* e, cudaGraph_t, unsigned long long) {
  *e = autograph::cuda::recording::make_handle<cudaGraphExec_t>(std::uintptr_t{5} << 40);
  recorder().add(Kind::graph_instantiate, "cudaGraphInstantiate");
  return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t) { return cudaSuccess; }
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t) { return cudaSuccess; }
cudaError_t cudaGraphLaunch(cudaGraphExec_t, cudaStream_t s) {
  recorder().add(Kind::graph_launch, "cudaGraphLaunch", s);
  return cudaSuccess;
}

// ---- kernel launches: what nvcc lowers <<<>>> to (CUDA 13) -------------------------------------

void** __cudaRegisterFatBinary(void*) {
  static void* handle = nullptr;
  return &handle;
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterFunction(void**, char const* host_fun, char*, char const* device_name, int, uint3*, uint3*, dim3*, dim3*, int*) {
  autograph::cuda::recording::kernel_names()[host_fun] = device_name;
}
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, std::size_t shared, CUstream_st* stream) {
  autograph::cuda::recording::launch_configs.push_back({grid, block, shared, stream});
  return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, std::size_t* shared, void* stream) {
  auto& configs = autograph::cuda::recording::launch_configs;
  if (configs.empty()) return cudaErrorInvalidConfiguration;
  auto c = configs.back();
  configs.pop_back();
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, void const* fun) {
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(fun));
  return cudaSuccess;
}
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void**, std::size_t shared, cudaStream_t s) {
  auto const& names = autograph::cuda::recording::kernel_names();
  auto it = names.find(reinterpret_cast<void const*>(kernel));
  Call& c = recorder().add(Kind::kernel, it == names.end() ? std::string("kernel") : it->second, s);
  c.accesses = c.declared;  // kernel parameters are not decoded: the node's memory
  c.grid = grid;
  c.block = block;
  c.shared_bytes = shared;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x * block.y * block.z == 0 || block.x * block.y * block.z > 1024 ||
      grid.y > 65535 || grid.z > 65535) {
    autograph::cuda::recording::last_error = cudaErrorInvalidConfiguration;
    return cudaErrorInvalidConfiguration;
  }
  return cudaSuccess;
}

}  // extern "C"
