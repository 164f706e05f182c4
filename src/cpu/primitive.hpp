#pragma once
// What the CPU kernels of the built-in operators share (src/cpu/ only; it includes oneDNN):
// describing our dense row-major tensors to oneDNN, creating primitive descriptors with the
// node's thread count (a shape oneDNN cannot do is rejected in prepare(), naming it), and
// registering a primitive as a step whose binder wraps the node's pointers in oneDNN memory
// objects once, so that a run only executes it.
#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "autograph/cpu/ops.hpp"
#include "loop_threads.hpp"

namespace autograph::cpu::builtin::detail {

using dnnl::memory;
using Dims = memory::dims;

/// The CPU engine every kernel uses (one per process, as oneDNN recommends).
dnnl::engine const& engine();

Dims dims_of(Shape const& s);
/// Dense row-major float32 with shape `s` (a scalar as one element: oneDNN has no rank 0).
memory::desc plain(Shape const& s);
/// Float32 with the given dimensions and strides (in elements).
memory::desc strided(Dims const& dims, Dims const& strides);
/// `s` in `layout`: plain(s), or channels-last (oneDNN's acdb) for rank 4.
memory::desc laid_out(Shape const& s, Layout layout);
/// Input i / output o as the runtime hands it to the kernel (Preparation's layouts).
memory::desc input_desc(Preparation const& p, std::size_t i);
memory::desc output_desc(Preparation const& p, std::size_t o);
/// Attributes every primitive is created with: its scratchpad is ours (a workspace of the
/// node), so that a run allocates nothing.
dnnl::primitive_attr user_scratchpad();

/// OpenMP's thread count set to the node's while it lives: oneDNN's OpenMP build sizes a
/// primitive by omp_get_max_threads() when it is created.
class ThreadScope {
 public:
  explicit ThreadScope(int threads) : before_(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~ThreadScope() { omp_set_num_threads(before_); }
  ThreadScope(ThreadScope const&) = delete;
  ThreadScope& operator=(ThreadScope const&) = delete;

 private:
  int before_;
};

/// Calls f() (creating a primitive descriptor) with the node's thread count; what oneDNN
/// cannot do is rejected: "oneDNN has no <what> (<oneDNN's message>)".
template <class F>
auto or_reject(Preparation const& p, std::string const& what, F const& f) -> decltype(f()) {
  try {
    ThreadScope threads(p.threads());
    return f();
  } catch (dnnl::error const& e) {
    p.reject("oneDNN has no " + what + " (" + e.what() + ")");
  }
}

/// A reorder between two layouts of the same tensor.
dnnl::reorder::primitive_desc reorder_pd(Preparation const& p, std::string const& what, memory::desc const& from, memory::desc const& to);

/// Where a primitive argument's memory lies.
enum class From : std::uint8_t { input, output, workspace };

struct Arg {
  int id;  // DNNL_ARG_*
  memory::desc desc;
  From from;
  std::size_t index;
  std::int64_t offset_bytes = 0;
  /// A constant input stored in this (plain) layout, reordered into `desc` once, at bind time.
  std::optional<memory::desc> reorder_from = {};
};

/// Registers `pd`'s primitive as a step ("oneDNN <kind> (<implementation>)"), with its
/// scratchpad as a workspace. Its binder wraps the pointers in memory objects.
void register_primitive(Preparation& p, std::string const& kind, dnnl::primitive_desc_base const& pd, dnnl::primitive const& prim,
                        std::vector<Arg> args);

/// Creates the primitive of `pd` with the node's thread count (a JIT kernel may be generated
/// for it) and registers it.
template <class Primitive>
void run_primitive(Preparation& p, std::string const& kind, typename Primitive::primitive_desc const& pd, std::vector<Arg> args) {
  dnnl::primitive prim = or_reject(p, kind + " primitive", [&] { return dnnl::primitive(Primitive(pd)); });
  register_primitive(p, kind, pd, prim, std::move(args));
}

/// The argument for input i that `consumer` wants in layout `want` (its pd's choice for a
/// `format_tag::any` desc): the input itself when the layouts agree; a constant input
/// reordered once at bind time; otherwise a workspace a reorder step fills on every run
/// (registered here, so before the consumer's step).
Arg input_as(Preparation& p, int id, std::size_t i, memory::desc const& have, memory::desc const& want);

/// The argument for output o that a primitive writes in layout `produced`: the output itself
/// when that is how the output lies (`out`, its output_desc), otherwise a workspace.
/// finish_output() then reorders that workspace into the output (call it after registering
/// the producer's step).
Arg output_as(Preparation& p, int id, std::size_t o, memory::desc const& produced, memory::desc const& out);
void finish_output(Preparation& p, Arg const& produced, std::size_t o, memory::desc const& out);

/// A step that does nothing: a node whose outputs are all empty.
bool nothing_to_compute(Preparation& p);
/// Rejects a node with an empty input (oneDNN creates no primitive for zero-sized tensors).
void require_nonempty_inputs(Preparation const& p, std::string const& kind);

/// Registers a step computing y = copy of x (Identity, Reshape), a plain memcpy unless the
/// runtime gave both the same buffer.
void run_copy(Preparation& p, std::string const& what, std::size_t in, std::size_t out);

/// Registers a step filling output o with `value`.
void run_fill(Preparation& p, std::string const& what, std::size_t o, float value);

/// Runs f(begin, end) over [0, n) split into contiguous parts on `threads` OpenMP threads (one
/// under ThreadSanitizer: loop_threads.hpp).
template <class F>
void parallel_for(int threads, std::int64_t n, F const& f) {
  threads = cpu::detail::loop_threads(threads);
  if (threads <= 1 || n < 2) {
    f(std::int64_t{0}, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    std::int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    std::int64_t begin = n * t / nt, end = n * (t + 1) / nt;
    if (begin < end) f(begin, end);
  }
}

}  // namespace autograph::cpu::builtin::detail
