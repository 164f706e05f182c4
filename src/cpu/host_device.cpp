// host_device_spec (autograph/cpu/runtime.hpp): this machine as a roofline device.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "autograph/cpu/runtime.hpp"
#include "autograph/cpu/threads_worth.hpp"

namespace autograph::cpu {
namespace {

/// FP32 flops per cycle per core from the CPU's flags (/proc/cpuinfo): FMA counts 2 flops,
/// two FMA pipes per core (every x86 core with AVX2 since Haswell has two 256-bit FMA units;
/// AVX-512 server cores two 512-bit ones).
double flops_per_cycle() {
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);)
    if (line.starts_with("flags")) {
      auto has = [&](std::string const& f) { return line.find(" " + f + " ") != std::string::npos || line.ends_with(" " + f); };
      if (has("avx512f")) return 2 * 2 * 16;
      if (has("avx2") && has("fma")) return 2 * 2 * 8;
      return 2 * 4;
    }
  return 2 * 4;
}

/// The nominal clock in GHz: the "@ 2.90GHz" of the model name, else the current "cpu MHz".
double clock_ghz() {
  auto const& name = cpu_model_name();
  if (auto at = name.rfind('@'); at != std::string::npos) {
    try {
      return std::stod(name.substr(at + 1));
    } catch (...) {
    }
  }
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);)
    if (line.starts_with("cpu MHz")) {
      auto colon = line.find(':');
      try {
        return std::stod(line.substr(colon + 1)) / 1000;
      } catch (...) {
      }
    }
  return 2.0;
}

/// GB/s of one copy of 64 MiB (read + write counted), the best of 3.
double copy_bandwidth_gbs() {
  std::size_t n = std::size_t{64} << 20;
  std::vector<char> a(n, 1), b(n, 0);
  double best = 0;
  for (int i = 0; i < 3; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    std::memcpy(b.data(), a.data(), n);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > 0) best = std::max(best, 2.0 * static_cast<double>(n) / s / 1e9);
    a[static_cast<std::size_t>(i)] = b[n - 1];  // keep the copies observable
  }
  return best > 0 ? best : 10.0;
}

}  // namespace

DeviceSpec host_device_spec(int cores) {
  static double const bandwidth = copy_bandwidth_gbs();
  static double const per_core_gflops = clock_ghz() * flops_per_cycle();
  DeviceSpec d;
  d.name = cpu_model_name();
  d.key = "cpu";
  d.sm_count = cores;
  d.max_threads_per_sm = 1;
  d.fp32_tflops = per_core_gflops * cores / 1e3;
  // The matrix rate (RooflineCost's convolutions and matmuls: oneDNN's GEMM path) is the same
  // peak; giving it its own field lets a calibration (cpu/device_model.hpp) fit the rate of
  // the other kernels (depthwise convolutions, pooling, ...) apart from it.
  d.tf32_tflops = d.fp32_tflops;
  d.bandwidth_gbs = bandwidth;
  d.compute_efficiency = 1;
  d.bandwidth_efficiency = 1;
  return d;
}

double kernel_cycles(double flops, double bytes) {
  static double const peak = flops_per_cycle();
  constexpr double load_cycles_per_byte = 11.0 / 64;  // Eigen's kLoadCycles: an L2 line of 64 bytes in 11 cycles
  return flops / peak + bytes * load_cycles_per_byte;
}

int threads_worth(double flops, double bytes, int most) {
  most = std::max(1, most);
  if (flops <= 0 && bytes <= 0) return most;
  constexpr double startup_cycles = 100000, per_thread_cycles = 100000;  // Eigen's kStartupCycles, kPerThreadCycles
  double threads = (kernel_cycles(flops, bytes) - startup_cycles) / per_thread_cycles + 0.9;
  return threads >= most ? most : std::max(1, static_cast<int>(threads));
}

}  // namespace autograph::cpu
