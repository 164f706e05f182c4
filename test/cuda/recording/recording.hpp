#pragma once
// A recording CUDA runtime: link-time stand-ins for the CUDA runtime, cuDNN and cuBLASLt
// entry points the autograph_cuda library calls (fake_cudart.cpp, fake_dnn.cpp). The test
// program that links them (cuda_recording_tests) links no libcudart, libcudnn or
// libcublasLt: the library's real lowering, planning, capture and replay code runs on the
// CPU, and every call that matters for ordering is recorded instead of run. check() then
// proves properties of the recording that a GPU run could only show by luck (a race that
// happens to lose).
//
// Recorded (one Call each, in issue order):
//   streams and events      cudaStreamCreateWithFlags/Destroy, cudaEventCreateWithFlags/Destroy,
//                           cudaEventRecord, cudaStreamWaitEvent (the happens-before edges)
//   capture                 cudaStreamBeginCapture/EndCapture, cudaGraphInstantiate, cudaGraphLaunch;
//                           per stream, whether it is capturing (a stream joins a capture by
//                           waiting for an event recorded in it, as in CUDA)
//   work on a stream        kernels (__cudaLaunchKernel, the launch nvcc lowers <<<>>> to, with
//                           its grid, block and dynamic shared memory),
//                           cudaMemcpyAsync, cudnnConvolutionForward/BackwardData/BiasActivationForward, cublasLtMatmul,
//                           each with the byte ranges it reads and writes
//   host-side blocking      cudaMalloc, cudaFree, cudaMemcpy, cudaStreamSynchronize,
//                           cudaEventSynchronize, cudnnFind*Algorithm (runs and synchronises)
// Where the ranges come from:
//   kernels                 the node's memory as GraphExecutable declares it to
//                           autograph::cuda::detail::launch_hook (inputs and uploads read,
//                           outputs and workspaces written); kernel parameters are not decoded
//   cuDNN / cuBLASLt        their own (fake) descriptors: x/w/y of a convolution from the
//                           tensor and filter descriptors, A/B/D of a matmul from the matrix
//                           layouts (rows, cols, ld, batch, stride), plus the workspace
//   cudaMemcpyAsync         its source and destination
// Faked, with plausible values: one device ("NVIDIA H100 80GB HBM3 (recorded)", sm_90, 132
// SMs, 80 GiB), CUDA 13.0, cuDNN 9.19.0, cuBLAS 13.0.2; cudaMalloc hands out 256-byte aligned
// addresses from a reserved, never-touched address range (device memory has no storage:
// device-to-host copies write zeros); cudnnFind* returns algorithm 1 needing 1 MiB of
// workspace, cuBLASLt's heuristic one algorithm needing 4 MiB; cudaEventElapsedTime 1 ms.
// Kernels are registered (__cudaRegisterFunction) so that a launch is named by its kernel.
//
// Fault injection (for tests that must fail the checker): drop the n-th cudaStreamWaitEvent
// or cudaEventRecord (counted from the last reset()): the call returns success and records
// nothing, as if the runtime had skipped it.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace autograph::cuda::recording {

/// Bytes [begin, end) of device memory.
struct Range {
  std::uintptr_t begin = 0, end = 0;
  bool overlaps(Range const& o) const { return begin < o.end && o.begin < end; }
  bool contains(Range const& o) const { return begin <= o.begin && o.end <= end; }
};

inline Range range_of(void const* p, std::size_t bytes) {
  auto b = reinterpret_cast<std::uintptr_t>(p);
  return {b, b + bytes};
}

struct Access {
  Range range;
  bool write = false;
};

struct Call {
  enum class Kind : std::uint8_t {
    stream_create, stream_destroy, event_create, event_destroy,
    event_record, stream_wait_event,
    begin_capture, end_capture, graph_instantiate, graph_launch,
    kernel, memcpy_async, library,          // work enqueued on a stream
    malloc, free, memcpy, stream_synchronize, event_synchronize, library_search,  // blocking host calls
  };
  Kind kind{};
  std::string name;                // "cudaStreamWaitEvent", the kernel's name, "cudnnConvolutionForward"
  cudaStream_t stream = nullptr;
  cudaEvent_t event = nullptr;
  std::string node;                // the node being launched (launch_hook), if any
  std::vector<Access> accesses;    // work: what it reads and writes
  std::vector<Access> declared;    // work: the node's memory (launch_hook) when the call was made
  bool in_node = false;            // made between launch_hook(node) and launch_hook(null)
  dim3 grid{0, 0, 0}, block{0, 0, 0};  // kernels: the launch's configuration
  std::size_t shared_bytes = 0;        // kernels: dynamic shared memory
};

/// The recorder behind the fakes: one per process.
class Recorder {
 public:
  std::vector<Call> const& calls() const { return calls_; }
  /// Forgets the calls so far (allocations and registered kernels are kept) and the faults.
  void reset();
  /// Drop the n-th (0-based) cudaStreamWaitEvent / cudaEventRecord from now on.
  void drop_wait(std::size_t n) { drop_wait_ = n; }
  void drop_record(std::size_t n) { drop_record_ = n; }
  /// Live device allocations (cudaMalloc'd, not freed), now and at the last reset().
  std::vector<Range> const& allocations() const { return allocations_; }
  std::vector<Range> const& allocations_at_reset() const { return allocations_at_reset_; }

  // For the fakes.
  Call& add(Call::Kind kind, std::string name, cudaStream_t stream = nullptr);
  bool take_drop_wait() { return take(drop_wait_, waits_seen_); }
  bool take_drop_record() { return take(drop_record_, records_seen_); }
  std::vector<Call> calls_;
  std::vector<Range> allocations_;  // in address order, live ones only
  std::vector<Range> allocations_at_reset_;
  std::vector<Access> node_memory_;
  std::string node_;
  bool in_node_ = false;

 private:
  static bool take(std::optional<std::size_t>& drop, std::size_t& seen) {
    bool hit = drop && *drop == seen;
    ++seen;
    return hit;
  }
  std::optional<std::size_t> drop_wait_, drop_record_;
  std::size_t waits_seen_ = 0, records_seen_ = 0;
};

Recorder& recorder();

/// Installs autograph::cuda::detail::launch_hook so that kernels are attributed to their
/// node's memory (done once by recorder(); idempotent).
void install_launch_hook();

struct CheckOptions {
  /// Report every violation, or stop at this many.
  std::size_t max_violations = 20;
};

/// What check() found.
struct Report {
  std::vector<std::string> violations;
  std::size_t captures = 0;          // capture sequences checked
  std::size_t captured_work = 0;     // kernels, copies and library calls inside captures
  std::size_t eager_work = 0;        // the same outside captures
  std::size_t ordered_pairs = 0;     // overlapping pairs (one writing) proven ordered
  std::size_t streams = 0;           // streams seen in captures (origin included)
  bool ok() const { return violations.empty(); }
  std::string to_string() const;
};

/// Checks a recording:
///  1. no illegal call while this thread captures: cudaMalloc, cudaFree, synchronous
///     cudaMemcpy, cudaStreamSynchronize, cudaEventSynchronize, cudnnFind* (they would fail
///     with cudaErrorStreamCaptureUnsupported or invalidate the capture), and no work on the
///     legacy default stream or on a stream outside the capture (it would run eagerly, not
///     in the graph);
///  2. every cudaStreamWaitEvent on a capturing stream waits for an event recorded earlier in
///     the same capture;
///  3. at cudaStreamEndCapture, every stream that joined the capture has been joined back
///     into the origin stream (its last work happens before the origin's end);
///  4. any two pieces of work touching overlapping bytes, at least one writing, are ordered
///     by happens-before: stream order plus record -> wait edges (inside a capture: its own
///     edges; outside: also host synchronisation). Eager work and captured work are checked
///     separately (a capture runs only when its graph is launched);
///  5. library calls and copies touch only memory their node declared, and all work only
///     memory inside a live allocation.
/// `live`: the allocations live when the recording began.
Report check(std::vector<Call> const& calls, std::vector<Range> const& live, CheckOptions const& options = {});
/// The recorder's calls since its last reset().
inline Report check(Recorder const& r, CheckOptions const& options = {}) { return check(r.calls(), r.allocations_at_reset(), options); }

}  // namespace autograph::cuda::recording
