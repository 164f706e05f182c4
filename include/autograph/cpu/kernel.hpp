#pragma once
// The extension point of the CPU runtime: how an operator runs on the host's cores.
//
//   template <> struct autograph::cpu::Kernel<MyOp> {
//     static void prepare(MyOp const& op, Preparation& p) {
//       std::int64_t n = p.outputs()[0].numel();
//       p.run("my_op", [n](Io const& io) -> Runner {
//         return [x = io.in[0], y = io.out[0], n] { for (std::int64_t i = 0; i < n; ++i) y[i] = f(x[i]); };
//       });
//     }
//   };
//
// Like capturing a CUDA graph, everything is decided before the first timed run:
// - prepare() runs once per node when an executable is built: it checks the shapes (reject()
//   says what is unsupported), creates library primitives for threads() threads, and asks for
//   workspace;
// - the binder given to run() is called once the memory arena is laid out, with the final
//   pointers; inputs that are constants (weights, and what is computed from weights alone)
//   already hold their data then, so a binder may reorder them into a library's layout;
// - the runner it returns is what every run calls. A runner must not allocate, create
//   primitives or wait for other kernels (the executor orders kernels by the schedule), and
//   uses at most threads() threads (the executor sets OpenMP's thread count to it around the
//   call, which is what oneDNN's OpenMP build reads).
//
// An op with no Kernel specialisation runs through its reference kernel
// (runtime/reference_kernel.hpp), copying its inputs in and its outputs out; such a kernel
// allocates on every run, and the executable lists it (CpuExecutable::fallbacks()).
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/core/tensor_desc.hpp"
#include "autograph/ops/operator.hpp"

namespace autograph::cpu {

/// How a 4-D tensor [N, C, H, W] lies in memory: row-major (plain), or channels-last (NHWC:
/// the C values of one pixel next to each other), the layout oneDNN's direct convolutions on
/// AVX-512 compute in. Lowering gives a value channels-last only when its producer and every
/// reader take it (Kernel<Op>::gives_channels_last / takes_channels_last); every other value,
/// and every graph input and output, is plain.
enum class Layout : std::uint8_t { plain, channels_last };

/// Element strides of `shape` in `layout` (channels-last only for rank 4; otherwise
/// strides_of(), row-major).
inline std::array<std::int64_t, Shape::max_rank> layout_strides(Shape const& shape, Layout layout) {
  if (layout != Layout::channels_last || shape.rank() != 4) return strides_of(shape);
  std::int64_t c = shape[1], h = shape[2], w = shape[3];
  return {c * h * w, 1, w * c, c};
}

/// What a binder sees: one pointer per input and output of the node (null for a tensor with
/// no elements) and one per workspace it asked for. The spans live only during the call: a
/// runner copies the pointers it needs.
struct Io {
  std::span<float const* const> in;
  std::span<float* const> out;
  std::span<void* const> workspace;
};

/// One run of a prepared kernel, its pointers bound.
using Runner = std::function<void()>;
/// Called once with the final pointers; returns the runner.
using Binder = std::function<Runner(Io const&)>;

/// What a Kernel's prepare() can ask of the runtime for one node.
class Preparation {
 public:
  struct Step {
    std::string what;
    Binder bind;
  };

  Preparation(std::string label, std::vector<TensorDesc> inputs, std::vector<TensorDesc> outputs, std::vector<char> constant_inputs,
              int threads, std::vector<Layout> input_layouts = {}, std::vector<Layout> output_layouts = {})
      : label_(std::move(label)), inputs_(std::move(inputs)), outputs_(std::move(outputs)), constant_(std::move(constant_inputs)),
        threads_(threads < 1 ? 1 : threads), input_layouts_(std::move(input_layouts)), output_layouts_(std::move(output_layouts)) {
    constant_.resize(inputs_.size(), 0);
    input_layouts_.resize(inputs_.size(), Layout::plain);
    output_layouts_.resize(outputs_.size(), Layout::plain);
  }

  std::span<TensorDesc const> inputs() const { return inputs_; }
  std::span<TensorDesc const> outputs() const { return outputs_; }
  /// "Conv2D 'stem/conv'": how errors name the node.
  std::string const& label() const { return label_; }
  /// Whether input i is a constant: its data is in place when the binder runs, and never changes.
  bool constant_input(std::size_t i) const { return i < constant_.size() && constant_[i] != 0; }
  /// How input i / output o lies in memory: always plain unless the op's Kernel takes or gives
  /// channels-last (see Layout).
  Layout input_layout(std::size_t i) const { return input_layouts_[i]; }
  Layout output_layout(std::size_t o) const { return output_layouts_[o]; }
  /// Threads the runner may use: decided from the schedule (a kernel alone on the critical
  /// path gets every core, concurrent branches one each), so that kernels never oversubscribe.
  int threads() const { return threads_; }

  /// Scratch memory for this node's runners only; returns its index in Io::workspace.
  std::size_t workspace(std::size_t bytes) {
    workspaces_.push_back(bytes);
    return workspaces_.size() - 1;
  }
  /// Registers a step; the node's steps run in the order registered. `what` names it in errors
  /// and reports ("oneDNN convolution (jit:avx2)").
  void run(std::string what, Binder bind) { steps_.push_back({std::move(what), std::move(bind)}); }
  /// @throws ExecutionError "<label>: unsupported on the CPU runtime: <why>", before anything runs.
  [[noreturn]] void reject(std::string_view why) const {
    throw ExecutionError(label_ + ": unsupported on the CPU runtime: " + std::string(why));
  }

  std::span<std::size_t const> workspaces() const { return workspaces_; }
  std::span<Step const> steps() const { return steps_; }

 private:
  std::string label_;
  std::vector<TensorDesc> inputs_, outputs_;
  std::vector<char> constant_;
  int threads_;
  std::vector<Layout> input_layouts_, output_layouts_;
  std::vector<std::size_t> workspaces_;
  std::vector<Step> steps_;
};

/// Specialise with `static void prepare(Op const&, Preparation&)`. The built-in operators'
/// specialisations are in autograph/cpu/ops.hpp.
template <class Op>
struct Kernel;

template <class Op>
concept HasCpuKernel = Operator<Op> && requires(Op const& op, Preparation& p) { Kernel<Op>::prepare(op, p); };

/// A Kernel that may be handed 4-D tensors channels-last (opt-in; otherwise every layout is
/// plain):
///   static bool takes_channels_last(Op const&, std::span<TensorDesc const> inputs, std::size_t i);
///   static bool gives_channels_last(Op const&, std::span<TensorDesc const> inputs);  // its 4-D outputs
/// prepare() then reads Preparation::input_layout(i) / output_layout(o).
template <class Op>
concept ChannelsLastKernel = HasCpuKernel<Op> && requires(Op const& op, std::span<TensorDesc const> in, std::size_t i) {
  { Kernel<Op>::takes_channels_last(op, in, i) } -> std::convertible_to<bool>;
  { Kernel<Op>::gives_channels_last(op, in) } -> std::convertible_to<bool>;
};

}  // namespace autograph::cpu
