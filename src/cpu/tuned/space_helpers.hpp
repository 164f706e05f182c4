#pragma once
// Arithmetic and knob values both tuned kernel families use (src/cpu/tuned/ only).
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../loop_threads.hpp"

namespace autograph::cpu::tuned {

inline std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }
inline std::int64_t ceil_div(std::int64_t x, std::int64_t m) { return (x + m - 1) / m; }
inline int available_cores() { return std::max(1, omp_get_num_procs()); }

using cpu::detail::loop_threads;  // one thread under ThreadSanitizer (src/cpu/loop_threads.hpp)

/// The threads knob: 1, the powers of two below the core count, and every core.
inline std::vector<std::int64_t> thread_counts() {
  std::vector<std::int64_t> t;
  int const cores = available_cores();
  for (std::int64_t n = 1; n < cores; n *= 2) t.push_back(n);
  t.push_back(cores);
  return t;
}

}  // namespace autograph::cpu::tuned
