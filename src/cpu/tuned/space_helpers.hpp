#pragma once
// Arithmetic and knob values both tuned kernel families use (src/cpu/tuned/ only).
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace autograph::cpu::tuned {

inline std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }
inline std::int64_t ceil_div(std::int64_t x, std::int64_t m) { return (x + m - 1) / m; }
inline int available_cores() { return std::max(1, omp_get_num_procs()); }

/// The OpenMP threads a kernel's loop runs on for a configured count: under ThreadSanitizer one,
/// as builtin::detail::parallel_for does (libgomp's fork and join are futexes TSan does not
/// model, so every split loop would be reported as a race; scripts/test.sh).
inline std::int64_t loop_threads(std::int64_t threads) {
#if defined(__SANITIZE_THREAD__)
  (void)threads;
  return 1;
#else
  return threads;
#endif
}

/// The threads knob: 1, the powers of two below the core count, and every core.
inline std::vector<std::int64_t> thread_counts() {
  std::vector<std::int64_t> t;
  int const cores = available_cores();
  for (std::int64_t n = 1; n < cores; n *= 2) t.push_back(n);
  t.push_back(cores);
  return t;
}

}  // namespace autograph::cpu::tuned
