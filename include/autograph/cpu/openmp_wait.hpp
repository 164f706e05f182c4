#pragma once
// How long libgomp's idle threads spin before they sleep, which decides two costs of the CPU
// runtime. Each stream is its own OpenMP team:
// - spinning long (libgomp's default, about 3 ms) takes the cores other streams' kernels need:
//   on this project's 2-core machine, under load, SqueezeNet measured 690 ms with Nimble's
//   streams against 10 ms with no spin at all (OMP_WAIT_POLICY=passive);
// - not spinning at all puts every thread to sleep after each kernel and wakes it with a futex
//   for the next: measured on the same machine, quiet, one stream (2026-11-25), SqueezeNet ran
//   7.0 ms passive against 3.7 ms with a 2000-iteration spin, ResNet-50 49-54 ms against 43 ms;
//   under Nimble's streams the short spin was as fast as passive or faster (NASNet-A Mobile
//   17.4 against 18.1 ms, RandWire 17.3 against 19.7 ms, Inception-v3 70.0 against 72.9 ms).
// So the runtime's programs ask for a short spin: GOMP_SPINCOUNT=2000, read by libgomp when it
// is loaded (before main), so a program sets it and starts itself again (tools/autograph).
#include <cstdlib>
#include <string_view>

namespace autograph::cpu {

/// The GOMP_SPINCOUNT the CPU runtime's programs run with unless the user chose a wait policy.
inline constexpr char const* short_spin_count = "2000";

/// Whether the user or the program chose how OpenMP threads wait (OMP_WAIT_POLICY or
/// GOMP_SPINCOUNT): otherwise libgomp's default spins for milliseconds.
inline bool openmp_wait_chosen() { return std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT"); }

/// Whether idle OpenMP threads spin long enough to starve concurrent streams: libgomp's
/// default, or OMP_WAIT_POLICY=active without a GOMP_SPINCOUNT.
inline bool openmp_spins_long() {
  if (std::getenv("GOMP_SPINCOUNT")) return false;
  char const* policy = std::getenv("OMP_WAIT_POLICY");
  return !policy || std::string_view(policy) != "passive";
}

}  // namespace autograph::cpu
