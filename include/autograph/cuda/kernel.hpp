#pragma once
// The extension point of the CUDA runtime: how an operator runs on the GPU.
//
//   template <> struct autograph::cuda::Kernel<MyOp> {
//     static void lower(MyOp const& op, Lowering& l) {
//       auto n = l.outputs()[0].numel();
//       l.launch("my_kernel", [n](LaunchArgs const& a) {
//         my_kernel<<<blocks(n), 256, 0, a.stream>>>(a.in[0], a.out[0], n);
//         check_launch("my_kernel");
//       });
//     }
//   };
//
// lower() runs once per node, before anything is captured: it checks the shapes (reject()
// explains what is unsupported, before any launch), picks algorithms, asks for workspace and
// constant tables, and declares views (outputs that are a range of an input: no copy). The
// launch functions it registers run while the schedule is captured into a CUDA graph, with
// the final device pointers; they must only enqueue work on `stream` (no synchronisation,
// no allocation) and may be called more than once (every capture of every schedule).
//
// Only the kernel and its launch need nvcc: declare the specialization in a header (lower()
// declared only) and define lower() in the .cu file beside the kernel, which then includes
// just this header; the graphs that use the op compile with the host compiler
// (test/cuda/swish_op.hpp, extension_test.cu and extension_test.cpp).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "autograph/core/tensor_desc.hpp"
#include "autograph/cuda/error.hpp"
#include "autograph/ops/operator.hpp"

namespace autograph::cuda {

class Device;

/// What a launch function sees: the stream it enqueues on and device pointers, one per
/// input and output of the node (null for tensors with no elements), one per workspace and
/// upload the lowering asked for.
struct LaunchArgs {
  cudaStream_t stream = nullptr;
  Device* device = nullptr;
  std::span<float const* const> in;
  std::span<float* const> out;
  std::span<void* const> workspace;
  std::span<void const* const> uploaded;
  std::span<char const> placed;  // placed[i]: input i was written in place into the output (Lowering::place_input)
};

using LaunchFn = std::function<void(LaunchArgs const&)>;

namespace detail {
struct NodeState;
}

/// What a Kernel's lower() can ask of the runtime for one node.
class Lowering {
 public:
  std::span<TensorDesc const> inputs() const;
  std::span<TensorDesc const> outputs() const;
  /// "Conv2D 'stem/conv'": how errors name the node.
  std::string const& label() const;
  /// @throws CudaError when planning_only().
  Device& device() const;
  /// Whether the graph is lowered for planning only (no device): a library plan that needs the
  /// GPU (cuDNN's measured algorithm choice) cannot be made; one whose needs have a known bound
  /// (cuBLASLt's workspace cap) may declare the bound instead.
  bool planning_only() const;
  /// Whether matrix products may run on TF32 tensor cores (1e-3 relative error).
  bool allow_tf32() const;
  /// Whether outputs may be views of inputs (off in tests that want every copy kernel to run).
  bool allow_views() const;
  /// Whether schedules launch this node (kernel_mask, cost/inference_kernels.hpp). A node no
  /// schedule launches (a Reshape, a contiguous Split) must make its outputs views.
  bool launched() const;
  /// The alignment in bytes (a power of two, at least 4) input i's device pointer is guaranteed to have.
  std::size_t input_alignment(std::size_t i) const;

  /// Output `out` is input `in`'s elements from `offset` on: no kernel writes it.
  void view(std::size_t out, std::size_t in, std::int64_t offset = 0);
  /// Input `in` may be written by its producer straight into output `out` at element
  /// `offset` (concatenation without a copy). Whether it was is decided after every node is
  /// lowered; the launch reads it from LaunchArgs::placed and copies only the others.
  void place_input(std::size_t in, std::size_t out, std::int64_t offset);
  /// Output `out` is written by a library kernel whose algorithm was chosen on buffers
  /// aligned to `bytes` (cuDNN's search runs on 256-byte aligned buffers of its own): an
  /// in-place concatenation then places it only at an offset that keeps that alignment, and
  /// copies it otherwise. `bytes`: a power of two, at most 256 (what arena buffers have).
  void require_output_alignment(std::size_t out, std::size_t bytes);
  /// Scratch memory for the launches of this node only; returns its index in LaunchArgs::workspace.
  std::size_t workspace(std::size_t bytes);
  /// Constant data the launches read (tables); copied to the device now. Returns its index
  /// in LaunchArgs::uploaded.
  std::size_t upload(void const* data, std::size_t bytes);
  /// Registers a launch; `what` names it in errors ("cudnnConvolutionForward").
  void launch(std::string what, LaunchFn f);
  /// @throws CudaError "<label>: unsupported on the CUDA runtime: <why>", before any launch.
  [[noreturn]] void reject(std::string_view why) const;

  explicit Lowering(detail::NodeState& s) : s_(&s) {}

 private:
  detail::NodeState* s_;
};

/// Specialise with `static void lower(Op const&, Lowering&)`. The built-in operators'
/// specialisations are in autograph/cuda/ops.hpp.
template <class Op>
struct Kernel;

template <class Op>
concept CudaExecutable = Operator<Op> && (is_source_op<Op> || requires(Op const& op, Lowering& l) { Kernel<Op>::lower(op, l); });

}  // namespace autograph::cuda
