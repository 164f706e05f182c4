#pragma once
// How kernels reach the GPU: a property of the runtime being simulated (SimulatedRuntime's
// LaunchModel), not of the kernels.
//
// - launch::CudaGraph: the schedule was captured once as a CUDA graph and is replayed with one
//   cudaGraphLaunch (DeviceSpec::graph_launch_us); the device dispatches each kernel as soon as
//   what it waits for has finished. This library's runtimes run this way.
// - launch::HostLaunched: a framework's host thread issues every kernel with cudaLaunchKernel,
//   one after another, as PyTorch, TensorRT's enqueue, IOS's and MetaFlow's engines do. Issuing
//   takes DeviceSpec::host_launch_us per kernel, and a kernel starts no earlier than it was
//   issued: many short kernels run at the host's pace, whatever the streams. The host issues
//   in a program order that respects every stream's order and wait (kernels whose turn is open
//   go in the order of the graph), and never blocks on the GPU (launches are asynchronous).
//   A run on more than one stream ends with the host synchronizing the device
//   (DeviceSpec::host_sync_us after the last kernel): streams that are not joined back cannot be
//   followed safely otherwise. IOS's engine does exactly this after every stage of several
//   groups, and so does its profiler when it times a stage; one stream needs no synchronization,
//   the next run's kernels queue behind it. SimulatedRuntime::measure_stages() runs a stage
//   list as IOS's engine does.
// - launch::MetaFlowEngine: host-launched as above, by MetaFlow's engine, which TASO's runtime
//   continues (same author and structure: jiazhihao/metaflow_sysml19 code/*_cudnn.cu,
//   jiazhihao/TASO src/cudnn/*.cu). Its timing loop (Model::measure_oplist_runtime) calls
//   every operator's forward() in order on one stream, with no synchronization between
//   operators, and some operators launch more than one kernel:
//   - a convolution without a fused activation calls cudnnConvolutionForward and then
//     cudnnAddTensor for its bias (Conv2D::forward): a second, elementwise kernel over the output;
//   - a concatenation copies each input into its slice of the output, one launch per input
//     (cudaMemcpyAsync in MetaFlow's Concat::forward, an assign_with_stride kernel in TASO's).
//   Each of those kernels is issued by its own call and priced by the cost model as the
//   operator it is (kernels()).
// - launch::IosEngine: host-launched, by IOS's engine (mit-han-lab/inter-operator-scheduler,
//   src/ios/ios_runtime.cu), which launches the same extra kernels as MetaFlow's:
//   - ConvOP::forward calls cudnnConvolutionBiasActivationForward for a convolution with an
//     activation (FP32 builds), and cudnnConvolutionForward then cudnnAddTensor for one
//     without: its bias in a second kernel, as above;
//   - IOS has no concatenation operator: a node whose input concatenates several terms
//     (Input::forward; the identity node that ends an Inception block is one) copies each term
//     into its slice of a buffer of its own, one assign_with_stride_src launch per term. A
//     concatenation read by several IOS nodes directly is copied once for each of them, which
//     kernels() (one operator at a time) counts once: there IOS's engine launches more.
//   - IOS sums values in one operator's input, not with binary adds: an input is a list of
//     terms, a term a list of same-shaped values that Term::forward adds up in one kernel,
//     accumulate_sum_2 to accumulate_sum_5 (src/ios/ops.cu: dst[i] = src1[i] + ... + src5[i]),
//     and a term of more than five values with one cudnnAddTensor per value (its `default:`
//     branch; the first with beta = 0, a copy). IOS's RandWire builds every node's input as one
//     term of all its predecessors (python/ios/models/randwire.py, randwire_stage), where
//     this library's graphs chain binary Adds. term_sum_inputs = 5 says so: a tree of Adds
//     whose inner sums have no other reader runs as one term (cost/summed_terms.hpp), its
//     inner Adds launch nothing, and its last one the kernels term_kernels() gives.
//     (Read at mit-han-lab/inter-operator-scheduler, src/ios/ios_runtime.cu, Term::forward.)
//
// kernels(op, in, out): the kernels a runtime launches for one operator, in order; empty when
// it launches the operator's own kernel alone (what the cost model prices).
// term_sum_inputs: 0 when the runtime runs every Add as the graph has it; n when it sums a term
// of same-shaped values as IOS's engine does, up to n of them in one kernel (term_kernels()).
#include <concepts>
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "autograph/ops/builtin.hpp"

namespace autograph::launch {

/// One kernel a runtime launches for (part of) an operator: an operator of its own, priced by
/// the cost model like any other.
struct EngineKernel {
  AnyOp op;
  std::vector<TensorDesc> in, out;
};

struct CudaGraph {
  static constexpr bool host_issued = false;
  static constexpr std::string_view name = "CUDA graph";
  static constexpr std::size_t term_sum_inputs = 0;
  static std::vector<EngineKernel> kernels(AnyOp const&, std::span<TensorDesc const>, std::span<TensorDesc const>) { return {}; }
};

struct HostLaunched {
  static constexpr bool host_issued = true;
  static constexpr std::string_view name = "host-launched";
  static constexpr std::size_t term_sum_inputs = 0;
  static std::vector<EngineKernel> kernels(AnyOp const&, std::span<TensorDesc const>, std::span<TensorDesc const>) { return {}; }
};

namespace detail {
/// The kernels of an engine that adds a convolution's bias in a kernel of its own when no
/// activation is fused into it, and copies each input of a concatenation in a launch of its
/// own (MetaFlow's, TASO's and IOS's; the header comment cites their code).
inline std::vector<EngineKernel> bias_and_copy_kernels(AnyOp const& op, std::span<TensorDesc const> in, std::span<TensorDesc const> out) {
  std::vector<TensorDesc> ins(in.begin(), in.end()), outs(out.begin(), out.end());
  if (auto const* conv = op.get_if<Conv2D>(); conv && conv->act == Activation::none && in.size() >= 2 && out.size() == 1) {
    // cudnnAddTensor: the output plus a bias of one value per channel, written in place.
    TensorDesc bias{Shape{1, out[0].shape[1], 1, 1}, out[0].dtype};
    return {EngineKernel{op, std::move(ins), outs}, EngineKernel{Add{}, {out[0], bias}, outs}};
  }
  if (op.is<Concat>() && in.size() > 1) {
    // One copy of each input into its slice of the output: it reads and writes that input's bytes.
    std::vector<EngineKernel> copies;
    for (TensorDesc const& x : in) copies.push_back(EngineKernel{Identity{}, {x}, {x}});
    return copies;
  }
  return {};
}
}  // namespace detail

/// The kernels an engine that sums terms (term_sum_inputs = `fused` > 0) launches for a term of
/// `values` (at least two, each the shape of `out`): one kernel that reads every value once and
/// writes the sum (IOS's accumulate_sum_N) when there are at most `fused` of them, else one
/// cudnnAddTensor per value into the output: a copy of the first (beta = 0), then an add of each
/// other value to the output in place (IOS's Term::forward, `default:` branch).
/// The one kernel is priced as an Add over all its values: the cost model reads what op.bytes()
/// counts, every input and the output once, which is what it moves; its flops (one per output
/// element) undercount the N - 1 adds, which no memory-bound elementwise kernel notices.
inline std::vector<EngineKernel> term_kernels(std::span<TensorDesc const> values, TensorDesc const& out, std::size_t fused) {
  std::vector<TensorDesc> outs{out};
  if (values.size() <= fused) return {EngineKernel{Add{}, std::vector<TensorDesc>(values.begin(), values.end()), outs}};
  std::vector<EngineKernel> each{EngineKernel{Identity{}, {values[0]}, outs}};
  for (std::size_t i = 1; i < values.size(); ++i) each.push_back(EngineKernel{Add{}, {out, values[i]}, outs});
  return each;
}

struct MetaFlowEngine {
  static constexpr bool host_issued = true;
  static constexpr std::string_view name = "MetaFlow/TASO engine";
  // An Add operator of these graphs adds its two inputs in one kernel (TASO's Element::forward,
  // src/cudnn/element_kernel.cu: one cudnnOpTensor): a chain of Adds runs as the graph has it.
  static constexpr std::size_t term_sum_inputs = 0;
  static std::vector<EngineKernel> kernels(AnyOp const& op, std::span<TensorDesc const> in, std::span<TensorDesc const> out) {
    return detail::bias_and_copy_kernels(op, in, out);
  }
};

struct IosEngine {
  static constexpr bool host_issued = true;
  static constexpr std::string_view name = "IOS engine";
  // Term::forward: accumulate_sum_2 .. accumulate_sum_5 (see the header comment).
  static constexpr std::size_t term_sum_inputs = 5;
  static std::vector<EngineKernel> kernels(AnyOp const& op, std::span<TensorDesc const> in, std::span<TensorDesc const> out) {
    return detail::bias_and_copy_kernels(op, in, out);
  }
};

}  // namespace autograph::launch

namespace autograph {

/// A launch model: launch::CudaGraph, launch::HostLaunched, launch::MetaFlowEngine or launch::IosEngine.
template <class L>
concept LaunchModel = requires(AnyOp const& op, std::span<TensorDesc const> in, std::span<TensorDesc const> out) {
  { L::host_issued } -> std::convertible_to<bool>;
  { L::name } -> std::convertible_to<std::string_view>;
  { L::term_sum_inputs } -> std::convertible_to<std::size_t>;
  { L::kernels(op, in, out) } -> std::same_as<std::vector<launch::EngineKernel>>;
};

}  // namespace autograph
