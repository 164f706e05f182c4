#pragma once
// Float vectors of W lanes for the tuned kernels (src/cpu/tuned/ only), as GCC's vector
// extensions (https://gcc.gnu.org/onlinedocs/gcc/Vector-Extensions.html): one template source
// for every width. The library is built for baseline x86-64; a kernel gets AVX2 or AVX-512 code
// by including its templates (simd_ops.inc, then the kernel's) inside a
// `#pragma GCC target("avx512f")` region, once per instruction set, and is picked at run time
// from what the CPU reports (cpu_supports_width). Templates defined outside such a region and
// inlined into it are not enough: GCC builds their broadcasts lane by lane for the baseline
// target (16 masked vbroadcastss where one suffices). No vector crosses a call between
// instruction sets, so the ABI of wide vectors never matters, and GCC's note that it would
// (-Wpsabi) is silenced for the files that include this header (src/cpu/tuned/*.cpp only).
#pragma GCC diagnostic ignored "-Wpsabi"
#include <cstdint>
#include <cstring>
#include <utility>

namespace autograph::cpu::tuned::simd {

template <int W>
struct Vec {
  typedef float f __attribute__((vector_size(W * sizeof(float))));
  typedef std::int32_t i __attribute__((vector_size(W * sizeof(std::int32_t))));
};
template <int W>
using vf = typename Vec<W>::f;
template <int W>
using vi = typename Vec<W>::i;

/// Whether this CPU runs vectors of `width` floats (4: SSE2, every x86-64; 8: AVX2 and FMA;
/// 16: AVX-512F), by CPUID (GCC's __builtin_cpu_supports).
inline bool cpu_supports_width(std::int64_t width) {
  if (width == 4) return true;
  if (width == 8) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (width == 16) return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  return false;
}

}  // namespace autograph::cpu::tuned::simd
