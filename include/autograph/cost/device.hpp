#pragma once
// Built-in GPU descriptions for the roofline cost model and the simulated runtime.
//
// Peak rates are the vendors' dense (no 2:4 sparsity) spec-sheet numbers; what a kernel can
// actually reach is a fraction of them. Those fractions come from one measured H100 SXM:
// a device-to-device copy moved 3.0 TB/s of the 3.35 TB/s peak (0.896), a bf16 GEMM ran at
// 798 of the 989.4 TFLOP/s peak (0.807), an FP32 GEMM on CUDA cores (TF32 off) at 51.6 of
// 66.9 (0.772), and cuDNN's depthwise convolutions at no more than 3.0 TFLOP/s (0.045 of the
// FP32 peak; benchmark/sim/h100_kernel_rates.py, its output beside it). The same fractions
// are applied to every device (an assumption: no other device was measured here), so the
// devices differ by their peaks, except Kepler's K80, whose SGEMM fraction was published for
// its sibling K40 (kepler_cuda_core_efficiency).
#include <array>
#include <cctype>
#include <concepts>
#include <string>
#include <string_view>

#include "autograph/core/error.hpp"

namespace autograph {

struct DeviceSpec {
  std::string_view name;      // how reports name it: "H100 SXM"
  std::string_view key;       // how the command line names it: "h100"
  int sm_count = 0;           // streaming multiprocessors
  int max_threads_per_sm = 0; // resident threads per SM (occupancy limit)
  double fp32_tflops = 0;     // CUDA-core FP32 (FMA = 2 flops)
  double tf32_tflops = 0;     // tensor-core TF32, dense; 0: no TF32 (FP32 convs run on CUDA cores)
  double fp16_tflops = 0;     // tensor-core FP16 with FP32 accumulation, dense
  double bandwidth_gbs = 0;   // DRAM bandwidth, GB/s
  double compute_efficiency = 0;    // reachable fraction of a tensor-core peak
  double bandwidth_efficiency = 0;  // reachable fraction of the DRAM peak
  double launch_us = 0;       // fixed time of one kernel inside a CUDA graph (dispatch, ramp-up, drain)
  double event_us = 0;        // one cross-stream dependency (event record + wait) inside a graph
  double graph_launch_us = 0; // one cudaGraphLaunch
  double memory_gib = 0;      // device memory, GiB (2^30 bytes); 0: unknown (nothing is checked against it)
  double host_launch_us = 0;  // host time to issue one kernel from a thread, without a CUDA graph (launch.hpp)
  double host_sync_us = 0;    // from the device going idle to the host returning from a synchronization (launch.hpp)
  double dram_latency_ns = 0; // a load's round trip to DRAM; 0: a kernel's bandwidth is its fill's share (roofline.hpp)
  double cuda_core_efficiency = 0;  // reachable fraction of the FP32 CUDA-core peak; 0: compute_efficiency (CPU descriptions)
  double depthwise_efficiency = 0;  // fraction of the FP32 peak depthwise convolution kernels reach; 0: cuda_core_efficiency
  double dispatch_us = 0;     // the part of launch_us the device's front end spends on one kernel, one kernel at a time
                              // whatever its stream (simulated_runtime.hpp); 0: kernels are dispatched in parallel

  /// Device memory in bytes (0 when unknown).
  constexpr double memory_bytes() const { return memory_gib * 1073741824.0; }

  /// Usable FP32 FLOP/s on CUDA cores, in flops per microsecond.
  constexpr double fp32_per_us() const { return fp32_tflops * (cuda_core_efficiency > 0 ? cuda_core_efficiency : compute_efficiency) * 1e6; }
  /// What a depthwise convolution kernel computes per microsecond (roofline.hpp).
  constexpr double depthwise_per_us() const { return depthwise_efficiency > 0 ? fp32_tflops * depthwise_efficiency * 1e6 : fp32_per_us(); }
  /// Usable matrix rate for float32 operands: TF32 tensor cores where the device has them, else CUDA cores.
  constexpr double matrix_f32_per_us() const { return tf32_tflops > 0 ? tf32_tflops * compute_efficiency * 1e6 : fp32_per_us(); }
  constexpr double matrix_f16_per_us() const { return fp16_tflops * compute_efficiency * 1e6; }
  /// Usable DRAM bytes per microsecond.
  constexpr double bytes_per_us() const { return bandwidth_gbs * bandwidth_efficiency * 1e3; }
  /// Threads the whole device holds at once.
  constexpr double resident_threads() const { return static_cast<double>(sm_count) * max_threads_per_sm; }
};

namespace devices {

// Measured on one H100 SXM (see the header comment): reachable fractions of the peaks.
inline constexpr double measured_compute_efficiency = 798.0 / 989.4;
inline constexpr double measured_bandwidth_efficiency = 3.0 / 3.35;
// An 8192^3 FP32 GEMM with TF32 off (cuBLAS through PyTorch 2.11, 2026-11-27): 51.6 TFLOP/s.
inline constexpr double measured_cuda_core_efficiency = 51.6 / 66.9;
// cuDNN 9.19's depthwise convolutions (groups = channels, FP32, TF32 off) on NASNet-A Large's
// separable-convolution shapes, 2026-11-27: at batch 32 the 5x5 and 7x7 kernels ran at
// 2.76-3.02 TFLOP/s while drawing 0.23-0.48 of the 3.35 TB/s peak, so neither the FMA units
// nor DRAM bound them: those kernels reach about 3.0 TFLOP/s at most (3x3: 1.7-1.8, and
// bandwidth-bound sooner). Large-kernel depthwise convolutions are that slow per flop: a
// GEMM-grade rate priced them 17x too fast.
inline constexpr double measured_depthwise_efficiency = 3.02 / 66.9;
// Kepler (the K80's GK210, the K40's GK110B) feeds an SMX's 192 FP32 lanes from 4 warp
// schedulers of 2 dispatch units each: 6 warp instructions a cycle need dual issue of
// independent instructions, which a GEMM's loop of FMAs and shared-memory loads sustains only in
// part (Lai and Seznec, "Performance Upper Bound Analysis and Optimization of SGEMM on Fermi and
// Kepler GPUs", CGO 2013: the schedulers' issue throughput bounds SGEMM on Kepler at 57.6% of the
// peak, against 82.5% on Fermi). Measured: cuBLAS 7.0's SGEMM on a Tesla K40 with its clocks set
// to the 875 MHz boost reached at most 3.32 of its 5.04 TFLOP/s (m = n = k up to 5760;
// clMathLibraries/clBLAS, doc/performance/cuBLAS_7.0/Tesla_K40/sgemm.csv and README.txt),
// where the H100's SGEMM reached 0.772. The GK210 is the GK110B's SMX with twice the registers
// and more shared memory, which can only help occupancy: the K40's fraction stands for it.
inline constexpr double kepler_cuda_core_efficiency = 3.315 / 5.04;
// Per-kernel and per-dependency overheads inside a CUDA graph. NVIDIA's "Getting Started with
// CUDA Graphs" (developer.nvidia.com/blog/cuda-graphs) measures a short kernel at 2.9 us
// running back to back in a graph at about 3.4 us each, i.e. about 0.5 us of dispatch per
// kernel; an empty kernel still pays about 1 us of block scheduling and drain on top of that.
// Checked, not fitted: on the lent H200 (2026-11-27, this library's CUDA runtime, the marginal
// time of one more launch in a replayed CUDA graph) the smallest kernels, a ReLU of 8,112
// floats and a bias add of 1,000, cost 1.25-1.30 us each.
inline constexpr double graph_kernel_launch_us = 1.5;
// Of those 1.5 us, the 0.5 us of dispatch is spent by the device's front end (the host
// interface and the work distributor that hands a grid's thread blocks to the SMs), one kernel
// after another: kernels that become ready together on several streams are started at least
// 0.5 us apart, and only their ramp-up and drain overlap. The blog's back-to-back gap is the
// one figure for that time; the same for every device (no other was measured).
inline constexpr double graph_kernel_dispatch_us = 0.5;
inline constexpr double graph_event_us = 0.5;
inline constexpr double graph_launch_overhead_us = 2.5;
// Issuing a kernel from a host thread (cudaLaunchKernel into a stream, no CUDA graph): the same
// blog runs 20 short kernels per step both ways; launched one by one from the host they take
// 3.8 us each where the graph replays them at 3.4 us, so the host issues a kernel no faster
// than every 3.8 us (the kernels, 2.9 us long, wait for their launches). The host side of a
// launch runs on the CPU and in the driver, so it is taken to be the same for every device.
inline constexpr double host_kernel_launch_us = 3.8;
// Synchronizing the host with the device: the same blog's first version calls
// cudaStreamSynchronize after every kernel and takes 9.6 us per kernel. Of that, 3.8 us are the
// issue (above) and 2.9 us the kernel, so the host returns from a synchronization 2.9 us after
// the device went idle. Host-side again, so the same for every device.
inline constexpr double host_synchronize_us = 2.9;
// DRAM latency, which with Little's law bounds the bandwidth a partly filled device draws
// (roofline.hpp). Pointer-chasing microbenchmarks put a global-memory load that misses the
// caches at roughly 400-600 ns on the GPUs described here (Jia et al., "Dissecting the NVIDIA
// Volta GPU Architecture via Microbenchmarking", 2018, and later editions for Turing and
// Ampere); no figure was measured here, so every device takes the middle of that range.
inline constexpr double typical_dram_latency_ns = 500;
// Memory: the datasheets' "80 GB" and the like are GiB in practice: nvidia-smi reports
// 81920 MiB for an A100 80GB, 32768 MiB for a V100 32GB, 11264 MiB for an RTX 2080 Ti, and
// 81559 MiB (H100 80GB) and 143771 MiB (H200 141GB) where a little is reserved. Reading them
// as GiB overstates a device by at most that reserve, so a memory check based on them never
// rejects a graph that fits.

/// NVIDIA H100 SXM5 80 GB (Hopper): 132 SMs, 66.9 TFLOP/s FP32, 494.7 TF32 and 989.4 FP16
/// tensor TFLOP/s dense, 3.35 TB/s and 80 GB of HBM3 (NVIDIA H100 datasheet; Hopper
/// whitepaper table 2).
struct H100 {
  static constexpr DeviceSpec spec{"H100 SXM", "h100", 132, 2048, 66.9, 494.7, 989.4, 3350,
                                   measured_compute_efficiency, measured_bandwidth_efficiency,
                                   graph_kernel_launch_us, graph_event_us, graph_launch_overhead_us, 80, host_kernel_launch_us, host_synchronize_us, typical_dram_latency_ns,
                                   measured_cuda_core_efficiency, measured_depthwise_efficiency, graph_kernel_dispatch_us};
};

/// NVIDIA H200 SXM 141 GB: the H100's GH100 compute (132 SMs, same peaks) with 4.8 TB/s and
/// 141 GB of HBM3e (NVIDIA H200 datasheet).
struct H200 {
  static constexpr DeviceSpec spec{"H200 SXM", "h200", 132, 2048, 66.9, 494.7, 989.4, 4800,
                                   measured_compute_efficiency, measured_bandwidth_efficiency,
                                   graph_kernel_launch_us, graph_event_us, graph_launch_overhead_us, 141, host_kernel_launch_us, host_synchronize_us, typical_dram_latency_ns,
                                   measured_cuda_core_efficiency, measured_depthwise_efficiency, graph_kernel_dispatch_us};
};

/// NVIDIA A100 SXM4 80 GB (Ampere): 108 SMs, 19.5 TFLOP/s FP32, 156 TF32 and 312 FP16 tensor
/// TFLOP/s dense, 2039 GB/s and 80 GB of HBM2e (NVIDIA A100 datasheet, SXM 80GB column).
struct A100 {
  static constexpr DeviceSpec spec{"A100 SXM4 80GB", "a100", 108, 2048, 19.5, 156, 312, 2039,
                                   measured_compute_efficiency, measured_bandwidth_efficiency,
                                   graph_kernel_launch_us, graph_event_us, graph_launch_overhead_us, 80, host_kernel_launch_us, host_synchronize_us, typical_dram_latency_ns,
                                   measured_cuda_core_efficiency, measured_depthwise_efficiency, graph_kernel_dispatch_us};
};

/// NVIDIA V100 SXM2 (Volta): 80 SMs, 15.7 TFLOP/s FP32, 125 FP16 tensor TFLOP/s, no TF32,
/// 900 GB/s HBM2 (NVIDIA V100 datasheet). The datasheet lists 16 GB and 32 GB variants and the
/// name says neither: the spec takes 32 GB, so the memory check rejects no graph either fits.
struct V100 {
  static constexpr DeviceSpec spec{"V100 SXM2", "v100", 80, 2048, 15.7, 0, 125, 900,
                                   measured_compute_efficiency, measured_bandwidth_efficiency,
                                   graph_kernel_launch_us, graph_event_us, graph_launch_overhead_us, 32, host_kernel_launch_us, host_synchronize_us, typical_dram_latency_ns,
                                   measured_cuda_core_efficiency, measured_depthwise_efficiency, graph_kernel_dispatch_us};
};

/// NVIDIA GeForce RTX 2080 Ti (Turing TU102, reference clocks): 68 SMs, 1024 resident threads
/// per SM, 13.4 TFLOP/s FP32, 53.8 FP16 tensor TFLOP/s with FP32 accumulation (GeForce runs
/// that at half the FP16-accumulate rate of 107.6), no TF32, 616 GB/s and 11 GB of GDDR6
/// (Turing architecture whitepaper, appendix A).
struct RTX2080Ti {
  static constexpr DeviceSpec spec{"RTX 2080 Ti", "rtx2080ti", 68, 1024, 13.4, 0, 53.8, 616,
                                   measured_compute_efficiency, measured_bandwidth_efficiency,
                                   graph_kernel_launch_us, graph_event_us, graph_launch_overhead_us, 11, host_kernel_launch_us, host_synchronize_us, typical_dram_latency_ns,
                                   measured_cuda_core_efficiency, measured_depthwise_efficiency, graph_kernel_dispatch_us};
};

/// NVIDIA Tesla P100 SXM2 (Pascal GP100): 56 SMs, 10.6 TFLOP/s FP32, 21.2 TFLOP/s FP16 on CUDA
/// cores (no tensor cores), 732 GB/s and 16 GB of HBM2 (NVIDIA Tesla P100 datasheet, NVLink
/// column; Pascal GP100 whitepaper table 1). The MetaFlow paper measured on it.
struct P100 {
  static constexpr DeviceSpec spec{"Tesla P100 SXM2", "p100", 56, 2048, 10.6, 0, 21.2, 732,
                                   measured_compute_efficiency, measured_bandwidth_efficiency,
                                   graph_kernel_launch_us, graph_event_us, graph_launch_overhead_us, 16, host_kernel_launch_us, host_synchronize_us, typical_dram_latency_ns,
                                   measured_cuda_core_efficiency, measured_depthwise_efficiency, graph_kernel_dispatch_us};
};

/// NVIDIA Tesla K80 (Kepler GK210), one of its two GPUs, as CUDA sees it: 13 SMX, 2048 resident
/// threads each, 2496 CUDA cores at the 875 MHz boost clock = 4.37 TFLOP/s FP32 (half the
/// board's 8.73), no FP16 arithmetic (FP16 data is computed in FP32), 240 GB/s and 12 GB of
/// GDDR5 (half the board's 480 GB/s and 24 GB; NVIDIA Tesla K80 datasheet). The IOS thesis
/// measured on it. Its CUDA cores, which also compute its FP16 data (it has no tensor cores),
/// reach Kepler's measured SGEMM fraction (kepler_cuda_core_efficiency), not the H100's.
struct K80 {
  static constexpr DeviceSpec spec{"Tesla K80 (one GK210)", "k80", 13, 2048, 4.37, 0, 4.37, 240,
                                   kepler_cuda_core_efficiency, measured_bandwidth_efficiency,
                                   graph_kernel_launch_us, graph_event_us, graph_launch_overhead_us, 12, host_kernel_launch_us, host_synchronize_us, typical_dram_latency_ns,
                                   kepler_cuda_core_efficiency, measured_depthwise_efficiency, graph_kernel_dispatch_us};
};

inline constexpr std::array<DeviceSpec, 7> all{H100::spec, H200::spec, A100::spec, V100::spec, RTX2080Ti::spec, P100::spec, K80::spec};

}  // namespace devices

/// A device type: a struct with a `static constexpr DeviceSpec spec`.
template <class D>
concept Device = requires {
  { D::spec } -> std::convertible_to<DeviceSpec>;
};

namespace devices {
/// A device given as a value when the runtime is constructed rather than as a type:
/// `SimulatedRuntime<devices::AtRunTime> rt(device_spec("v100"))`. Every device then shares one
/// instantiation of the runtime and of what is built on it (the tool and the precompiled
/// baselines use it; a type per device cost a full compilation of the searches for each).
struct AtRunTime {};
}  // namespace devices

/// What a simulated runtime accepts as its device: a device type, or devices::AtRunTime.
template <class D>
concept SimulatedDevice = Device<D> || std::same_as<D, devices::AtRunTime>;

/// The built-in device named `key` ("h100", "H200", "rtx2080ti"; case and '-' / '_' ignored).
/// @throws Error listing the known names.
inline DeviceSpec const& device_spec(std::string_view key) {
  auto norm = [](std::string_view s) {
    std::string r;
    for (char c : s)
      if (c != '-' && c != '_' && c != ' ') r += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return r;
  };
  std::string want = norm(key);
  for (auto const& d : devices::all)
    if (norm(d.key) == want || norm(d.name) == want) return d;
  std::string known;
  for (auto const& d : devices::all) known += (known.empty() ? "" : ", ") + std::string(d.key);
  throw Error("unknown device '" + std::string(key) + "' (known: " + known + ")");
}

}  // namespace autograph
