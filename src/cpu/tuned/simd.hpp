#pragma once
// Float vectors of W lanes for the tuned kernels (src/cpu/tuned/ only), as GCC's vector
// extensions (https://gcc.gnu.org/onlinedocs/gcc/Vector-Extensions.html): one template source
// for every width. The library is built for baseline x86-64; a kernel gets AVX2 or AVX-512 code
// by calling these always-inline helpers from a function compiled with that target
// (__attribute__((target("avx512f")))), chosen at run time from what the CPU reports
// (cpu_supports_width). No vector crosses a call that is not inlined, so the ABI of wide
// vectors never matters, and GCC's note that it would (-Wpsabi) is silenced for the files that
// include this header (src/cpu/tuned/*.cpp only).
#pragma GCC diagnostic ignored "-Wpsabi"
#include <cstdint>
#include <cstring>

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

template <int W>
[[gnu::always_inline]] inline vf<W> load(float const* p) {
  vf<W> v;
  std::memcpy(&v, p, sizeof v);  // an unaligned load
  return v;
}
template <int W>
[[gnu::always_inline]] inline void store(float* p, vf<W> v) {
  std::memcpy(p, &v, sizeof v);
}
template <int W>
[[gnu::always_inline]] inline vf<W> broadcast(float x) {
  return vf<W>{} + x;
}
template <int W>
[[gnu::always_inline]] inline float max_of(vf<W> v) {
  float m = v[0];
  for (int i = 1; i < W; ++i) m = v[i] > m ? v[i] : m;
  return m;
}
template <int W>
[[gnu::always_inline]] inline float sum_of(vf<W> v) {
  float s = 0;
  for (int i = 0; i < W; ++i) s += v[i];
  return s;
}

/// 2^x for every lane, relative error below 1e-7 (float rounding) for x in [-126, 127]; lanes
/// below -126 (-inf included) give exactly 0. 2^x = 2^n * 2^f with n = round(x), |f| <= 1/2,
/// and 2^f = e^(f ln 2) by its Taylor series to degree 7: the first term left out is
/// (ln 2 / 2)^8 / 8! < 6e-9.
template <int W>
[[gnu::always_inline]] inline vf<W> exp2(vf<W> x) {
  vf<W> const lo = broadcast<W>(-126.f), hi = broadcast<W>(127.f);
  auto below = x < lo;
  x = x < lo ? lo : x;
  x = x > hi ? hi : x;
  vf<W> t = x + 0.5f;
  vi<W> n = __builtin_convertvector(t, vi<W>);               // truncates toward zero
  n += __builtin_convertvector(n, vf<W>) > t;                // -1 (true) where that was above: floor(t)
  vf<W> f = x - __builtin_convertvector(n, vf<W>);           // in [-1/2, 1/2]
  vf<W> y = f * 0.69314718055994531f;                        // f ln 2
  vf<W> p = broadcast<W>(1.f / 5040.f);
  p = p * y + 1.f / 720.f;
  p = p * y + 1.f / 120.f;
  p = p * y + 1.f / 24.f;
  p = p * y + 1.f / 6.f;
  p = p * y + 0.5f;
  p = p * y + 1.f;
  p = p * y + 1.f;
  vi<W> bits = (n + 127) << 23;                              // 2^n as a float's exponent field
  vf<W> scale;
  std::memcpy(&scale, &bits, sizeof scale);
  vf<W> r = p * scale;
  return below ? vf<W>{} : r;
}

}  // namespace autograph::cpu::tuned::simd
