#pragma once
// Test instrumentation: the memory each node's launches may touch, told to a hook before they
// are enqueued. GraphExecutable calls it when it is set; nothing in the library sets it. The
// recording CUDA runtime of the tests (test/cuda/recording/) sets it to attribute the kernels
// it records to byte ranges without decoding kernel parameters.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string_view>
#include <vector>

namespace autograph::cuda::detail {

/// The device memory of one node's launches: what they read (inputs, uploaded tables) and
/// what they write (outputs, workspaces), each [ptr, ptr + bytes). Empty tensors are left out.
struct NodeMemory {
  struct Range {
    void const* ptr = nullptr;
    std::size_t bytes = 0;
  };
  std::string_view label;
  cudaStream_t stream = nullptr;
  std::vector<Range> reads, writes;
};

/// Called with the node before its launches are enqueued and with null after them. Not
/// thread-safe: set it only in single-threaded test programs.
inline void (*launch_hook)(NodeMemory const* node) = nullptr;

}  // namespace autograph::cuda::detail
