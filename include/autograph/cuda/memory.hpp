#pragma once
// RAII owners of CUDA objects: device memory, streams, events, instantiated graphs.
// Destructors never throw (a failure while tearing down is ignored: the process may be
// exiting with the device already gone).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "autograph/cuda/error.hpp"

namespace autograph::cuda {

/// Device memory from cudaMalloc.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes, std::string_view what = "device buffer") : bytes_(bytes) {
    if (bytes > 0) check(cudaMalloc(&ptr_, bytes), "cudaMalloc(" + std::to_string(bytes) + " bytes)", what);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { reset(); }

  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  void reset() {
    if (ptr_) (void)cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// A non-blocking stream (never synchronises implicitly with the legacy default stream).
class Stream {
 public:
  Stream() { check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&&) = delete;
  ~Stream() {
    if (s_) (void)cudaStreamDestroy(s_);
  }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

/// An event; `timing` events can measure elapsed time, the others are cheaper to wait on.
class Event {
 public:
  explicit Event(bool timing = false) {
    check(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming), "cudaEventCreateWithFlags");
  }
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&&) = delete;
  ~Event() {
    if (e_) (void)cudaEventDestroy(e_);
  }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

/// A captured graph, instantiated for replay.
class GraphExec {
 public:
  GraphExec() = default;
  explicit GraphExec(cudaGraphExec_t e) : e_(e) {}
  GraphExec(GraphExec&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  GraphExec& operator=(GraphExec&& o) noexcept {
    if (this != &o) {
      if (e_) (void)cudaGraphExecDestroy(e_);
      e_ = std::exchange(o.e_, nullptr);
    }
    return *this;
  }
  ~GraphExec() {
    if (e_) (void)cudaGraphExecDestroy(e_);
  }
  cudaGraphExec_t get() const { return e_; }
  explicit operator bool() const { return e_ != nullptr; }

 private:
  cudaGraphExec_t e_ = nullptr;
};

}  // namespace autograph::cuda
