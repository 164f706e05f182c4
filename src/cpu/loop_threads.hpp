#pragma once
// How many OpenMP threads a kernel's own loop may fork, one rule for every compiled CPU kernel
// (the oneDNN-side parallel_for of primitive.hpp, the BLAS and own backends, the tuned
// kernels). It has no dependency of its own, so the tuned sources, which must not see oneDNN's
// headers, can include it.
namespace autograph::cpu::detail {

/// The threads a loop configured for `threads` runs on: that count, or one under
/// ThreadSanitizer. libgomp's fork and join are futexes TSan does not model, so every loop it
/// splits would be reported as a race (scripts/test.sh runs the CPU runtime's tests under TSan).
template <class Int>
constexpr Int loop_threads(Int threads) {
#if defined(__SANITIZE_THREAD__)
  (void)threads;
  return 1;
#else
  return threads;
#endif
}

}  // namespace autograph::cpu::detail
