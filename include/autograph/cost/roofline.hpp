#pragma once
// RooflineCost: a kernel's time from its work and a device's peaks, memoized per signature.
//
// `fill` is the fraction of the device the kernel occupies (its thread blocks over what the
// SMs hold at once, capped at 1). A kernel that fills a tenth of the SMs gets a tenth of the
// device's compute, which is what makes small kernels latency-bound and what the simulated
// runtime shares out when kernels run concurrently. Its bandwidth is what its threads keep in
// flight allows (Little's law, bandwidth_share()): more than its fill's share, up to all of
// it; concurrent kernels then share the DRAM bandwidth as well as the SMs
// (KernelCost::bandwidth).
//
//   time = latency + max(flops / (rate · fill), bytes / (bandwidth · share(fill)))
//
// Rates per kind of kernel:
// - Conv2D (all but depthwise) and MatMul: a GEMM, priced as the fastest
//   of the kernels cuBLAS and cuDNN choose from for its shape (their heuristics and cudnnFind
//   pick by speed; each candidate is the roofline of its own work):
//   - tiled: implicit GEMM on tensor cores (TF32 for float32 where the device has it, FP16 for
//     float16), 64x64 output tiles, two tiles resident per SM. Flops are counted on the
//     tile-padded problem, so a 289-row GEMM pays for 320 rows (tile quantisation is the
//     per-op efficiency). Tiles beyond one full device run in whole waves: a GEMM of 1.1
//     waves of tiles takes two, its last wave leaving most SMs idle (wave quantization,
//     NVIDIA's "Matrix Multiplication Background User's Guide", Deep Learning Performance
//     docs), so its work is counted on ceil(tiles / slots) full waves. For a MatMul whose
//     output has too few tiles to fill the device, K is split s ways (s a power of 2, at
//     least 32 of K per split: one k-step of a tile) so that s times as many tiles run, and
//     the s partial outputs are written and read back by a reduction (cuBLAS's split-K GEMMs
//     and their splitKreduce_kernel). cuDNN's forward
//     convolution kernels of the versions the published measurements used (the
//     scudnn_128x{128,64,32} implicit-GEMM family) do not split K: a batch-1 convolution with
//     few output tiles leaves most of the device idle, which is why the papers find
//     inter-operator parallelism there.
//   - matrix-vector, when M or N (a GEMM's rows or columns) is at most 8: cuBLAS's gemv-style
//     kernels read the matrix once with one thread per four of its elements, on CUDA cores,
//     with no tile padding; a batch-1 fully connected layer is bandwidth-bound this way.
//   - Winograd F(2x2, 3x3) for undilated 3x3 stride-1 convolutions of one group (cuDNN's
//     CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, FP32 on CUDA cores, transforms fused in the
//     kernel): 16 GEMMs, one per point of the transformed 4x4 tile, each with a row per 2x2
//     output tile: 16/36 of the direct method's multiplies (Lavin and Gray, 2016). The kernel
//     is fused (cuDNN's documentation sets it apart from WINOGRAD_NONFUSED, which runs the
//     transforms and the 16 GEMMs as kernels of their own), so one thread block computes all
//     16 points of its tiles: the output transform of a 2x2 tile reads all 16. Its blocks are
//     therefore 16 times fewer than 16 separately tiled GEMMs would have. The public fused
//     kernel of that design (winograd_2x2_3x3_32x32 in Nervana's neon, the library of Lavin
//     and Gray's own GPU kernels; neon/backends/winograd_conv.py) gives each 256-thread block 32 output
//     channels by 32 tiles (at batch 1, a 4x8 block of neighbouring 2x2 tiles; at batch 32,
//     one tile of 32 images): ceil(K/32) x ceil(N*tiles/32) blocks. A batch-1 convolution on a
//     small map has few: ResNet-34's 7x7x512 stage has 16, on any GPU, and each computes
//     16 x 32 x 32 x C multiply-adds on its share of an SM (two blocks per SM, as the tiles
//     above). The device's SM count decides how much of it that leaves idle.
// - FusedAttention: a FlashAttention kernel, its products on the matrix units, the softmax on
//   CUDA cores, one thread block per 64 query rows; the scores never reach DRAM.
// - depthwise convolutions: one thread per output element, at the rate cuDNN's depthwise
//   kernels were measured to reach (DeviceSpec::depthwise_per_us(), a small fraction of the
//   FP32 peak: each output channel has its own filter, so no operand is reused across a
//   tile as in a GEMM). Every other convolution, thin groups and few input channels
//   included, is a GEMM (above).
// - everything else (elementwise, pooling, normalisation, softmax, concat, split, ...):
//   CUDA-core FP32, one thread per output element; reductions use a warp per output.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "autograph/cost/detail/signature_cache.hpp"
#include "autograph/cost/device.hpp"
#include "autograph/cost/op_cost_model.hpp"
#include "autograph/ops/builtin.hpp"

namespace autograph {

class RooflineCost {
 public:
  static constexpr double tile = 64;           // GEMM output tile edge
  static constexpr double tiles_per_sm = 2;    // resident 64x64 tiles per SM
  static constexpr double warp = 32;

  explicit RooflineCost(DeviceSpec const& device = devices::H100::spec)
      : device_(device), cache_(std::make_shared<detail::SignatureCache>()) {}

  DeviceSpec const& device() const { return device_; }
  std::string describe() const { return "roofline, " + std::string(device_.name); }
  /// Signatures computed so far (shared by copies of this model).
  std::size_t cached_signatures() const { return cache_->size(); }

  KernelCost estimate(AnyOp const& op, std::span<TensorDesc const> in, std::span<TensorDesc const> out) const {
    if (!runs_kernel(op, in, out)) return {};
    return cache_->get(op, in, [&] { return compute(device_, op, in, out); });
  }

  /// The roofline without the memo (what estimate() computes once per signature).
  static KernelCost compute(DeviceSpec const& d, AnyOp const& op, std::span<TensorDesc const> in, std::span<TensorDesc const> out) {
    if (!runs_kernel(op, in, out)) return {};
    double flops = op.flops(in, out);
    double bytes = op.bytes(in, out);
    double rate = d.fp32_per_us();
    double fill = 1;
    auto threads_fill = [&](double threads) { return threads / d.resident_threads(); };
    bool f16 = !in.empty() && in[0].dtype == DType::float16;
    double const element = f16 ? 2 : 4;

    if (auto const* conv = op.get_if<Conv2D>()) {
      auto const& w = in[1].shape;
      auto const& y = out[0].shape;
      double groups = static_cast<double>(conv->groups);
      double k_per_group = static_cast<double>(w[0]) / groups;
      double c_per_group = static_cast<double>(w[1]);
      // cuDNN runs a grouped convolution as one implicit GEMM per group, each group's output
      // channels padded to the tile: ResNeXt-50's groups of 4 to 32 channels compute 64 and
      // waste up to 15/16 of it (why the AutoGraph paper regroups them). Depthwise
      // convolutions (one input channel per group) have kernels of their own.
      if (!(groups > 1 && c_per_group == 1)) {
        double rows = static_cast<double>(y[0] * y[2] * y[3]);
        Gemm best = fastest_gemm(d, groups, rows, k_per_group, c_per_group * static_cast<double>(w[2] * w[3]), f16, bytes, false);
        bool winograd = groups == 1 && w[2] == 3 && w[3] == 3 && conv->stride == std::array<std::int64_t, 2>{1, 1} &&
                        conv->dilation == std::array<std::int64_t, 2>{1, 1};
        if (winograd) {
          Gemm wino = fused_winograd(d, static_cast<double>(y[0]) * std::ceil(static_cast<double>(y[2]) / 2) * std::ceil(static_cast<double>(y[3]) / 2),
                                     k_per_group, c_per_group, element, bytes);
          if (wino.work_us(d) < best.work_us(d)) best = wino;
        }
        return finish(d, best.flops, best.bytes, best.rate, best.fill, best.in_flight);
      }
      fill = threads_fill(static_cast<double>(y.numel()));
      rate = d.depthwise_per_us();
    } else if (op.is<MatMul>()) {
      auto const& y = out[0].shape;
      auto const& a = in[0].shape;
      std::size_t r = y.rank();
      double batch = 1;  // the product of the leading dimensions (not numel / (M*N): M or N may be 0)
      for (std::size_t i = 0; i + 2 < r; ++i) batch *= static_cast<double>(y[i]);
      Gemm best = fastest_gemm(d, batch, static_cast<double>(y[r - 2]), static_cast<double>(y[r - 1]), static_cast<double>(a[a.rank() - 1]), f16, bytes, true);
      return finish(d, best.flops, best.bytes, best.rate, best.fill, best.in_flight);
    } else if (auto const* fa = op.get_if<FusedAttention>()) {
      // A FlashAttention kernel (Dao et al. 2022, Alg. 1): one thread block per 64 query rows
      // of a head; its two products on the matrix units, padded to tiles as a GEMM's; the
      // scale, mask and softmax of each score on CUDA cores. It reads q, kT, v and the mask
      // and writes the output (op.bytes()), never the score matrix.
      Shape scores = fa->scores_shape(in);
      Shape const& y = out[0].shape;
      std::size_t r = y.rank();
      double tq = static_cast<double>(y[r - 2]), tk = static_cast<double>(scores[scores.rank() - 1]), dv = static_cast<double>(y[r - 1]);
      double dk = static_cast<double>(in[0].shape[in[0].shape.rank() - 1]);
      double score_batch = static_cast<double>(scores.numel()) / std::max(tq * tk, 1.0), out_batch = static_cast<double>(y.numel()) / std::max(tq * dv, 1.0);
      auto padded = [](double v) { return std::ceil(v / tile) * tile; };
      double products = 2 * score_batch * padded(tq) * padded(tk) * dk + 2 * out_batch * padded(tq) * padded(dv) * tk;
      double per_score = flops - 2 * op.macs(in, out);
      double matrix = f16 ? d.matrix_f16_per_us() : d.matrix_f32_per_us();
      double work = products + per_score;
      double blocks = out_batch * std::ceil(tq / tile), slots = tiles_per_sm * d.sm_count;
      return finish(d, work, bytes, work / (products / matrix + per_score / d.fp32_per_us()), blocks / slots,
                    std::min(blocks, slots) * tile_in_flight(element));
    } else if (op.is<Reduce>()) {
      double outputs = static_cast<double>(out[0].numel());
      double per_output = static_cast<double>(in[0].numel()) / std::max(outputs, 1.0);
      fill = threads_fill(outputs * std::min(warp, per_output));
    } else if (auto const* pool = op.get_if<Pool2D>(); pool && pool->global) {
      auto const& x = in[0].shape;
      fill = threads_fill(static_cast<double>(out[0].numel()) * std::min(warp, static_cast<double>(x[2] * x[3])));
    } else {
      double threads = 0;
      for (auto const& o : out) threads += static_cast<double>(o.numel());
      fill = threads_fill(threads);
    }
    return finish(d, flops, bytes, rate, fill);
  }

 private:
  /// One way of running a GEMM: its work, the rate it computes at and the device it fills.
  struct Gemm {
    double flops = 0, bytes = 0, rate = 1, fill = 1;
    double in_flight = 0;  // bytes its tiles keep in flight (0: one load per thread, bandwidth_share())
    double work_us(DeviceSpec const& d) const { return roofline_work(d, flops, bytes, rate, fill, in_flight); }
  };

  static double clamp_fill(DeviceSpec const& d, double fill) { return std::clamp(fill, 1.0 / d.resident_threads(), 1.0); }
  static double roofline_work(DeviceSpec const& d, double flops, double bytes, double rate, double fill, double in_flight = 0) {
    fill = clamp_fill(d, fill);
    return std::max(flops / (rate * fill), bytes / (d.bytes_per_us() * bandwidth_share(d, fill, in_flight)));
  }
  static KernelCost finish(DeviceSpec const& d, double flops, double bytes, double rate, double fill, double in_flight = 0) {
    double work = roofline_work(d, flops, bytes, rate, fill, in_flight);
    double drawn = work > 0 ? std::min(1.0, bytes / d.bytes_per_us() / work) : 0;
    return KernelCost{d.launch_us + work, clamp_fill(d, fill), d.launch_us, drawn};
  }
  /// The fraction of the DRAM bandwidth a kernel filling `fill` of the device can draw. By
  /// Little's law a kernel draws the bytes it keeps in flight per unit of latency: `in_flight`
  /// bytes, or else one 16-byte load for each of its threads. So a small kernel reaches far
  /// more than its fill's share of the bandwidth (a few SMs can saturate DRAM), while the SMs
  /// it holds stay its share of compute. Without a latency (CPU descriptions), the share is the fill.
  static double bandwidth_share(DeviceSpec const& d, double fill, double in_flight = 0) {
    if (d.dram_latency_ns <= 0) return fill;
    if (in_flight <= 0) in_flight = fill * d.resident_threads() * bytes_in_flight_per_thread;
    return std::min(1.0, in_flight / (d.bytes_per_us() * d.dram_latency_ns / 1000));
  }
  static constexpr double bytes_in_flight_per_thread = 16;  // one 128-bit load

  /// What one tile keeps in flight: its shared-memory pipeline, `pipeline_stages` k-steps of
  /// both operand strips (CUTLASS's multistage GEMMs keep 3-4 stages; 4 x (64 + 64) x 32 floats
  /// is the 64 KB of shared memory two such tiles per SM fit in).
  static double tile_in_flight(double element) { return pipeline_stages * 2 * tile * k_step * element; }

  /// `batch` GEMMs of m x n x k in 64x64 tiles at `rate`; with `split_k`, K split when that
  /// fills more of the device (the split with the least work). `bytes`: what the op reads and writes.
  static Gemm tiled_gemm(DeviceSpec const& d, double batch, double m, double n, double k, double rate, double element, double bytes,
                         bool split_k) {
    double tiles = batch * std::ceil(m / tile) * std::ceil(n / tile);
    double slots = tiles_per_sm * d.sm_count;
    double flops = 2 * tiles * tile * tile * k;  // the padded problem the tensor cores actually compute
    auto way = [&](double parts, double extra_bytes) {
      double running = std::min(tiles * parts, slots);
      return Gemm{flops * in_waves(tiles * parts, slots), bytes + extra_bytes, rate, tiles * parts / slots, running * tile_in_flight(element)};
    };
    Gemm best = way(1, 0);
    for (double s = 2; split_k && k / s >= min_split_k && tiles * s / 2 < slots; s *= 2) {
      // Each split writes its partial output and the reduction reads them all back.
      Gemm split = way(s, 2 * s * batch * m * n * element);
      if (split.work_us(d) < best.work_us(d)) best = split;
    }
    return best;
  }

  /// cuDNN's fused Winograd F(2x2, 3x3) kernel over `tiles` 2x2 output tiles (all images),
  /// `k` output and `c` input channels, on CUDA cores: each thread block computes the 16
  /// transformed points of its 32 tiles x 32 output channels (the header comment says why).
  static Gemm fused_winograd(DeviceSpec const& d, double tiles, double k, double c, double element, double bytes) {
    double blocks = std::ceil(tiles / winograd_block) * std::ceil(k / winograd_block);
    double flops = 2 * blocks * winograd_points * winograd_block * winograd_block * c;  // padded to whole blocks
    double slots = tiles_per_sm * d.sm_count;
    return Gemm{flops * in_waves(blocks, slots), bytes, d.fp32_per_us(), blocks / slots, std::min(blocks, slots) * tile_in_flight(element)};
  }

  /// Wave quantization: the factor by which `blocks` thread blocks, more than the `slots` the
  /// device holds at once, take longer than their share of the device (whole waves over
  /// blocks / slots). At most one wave, or a description without SMs: 1.
  static double in_waves(double blocks, double slots) {
    return blocks <= slots || slots <= 0 ? 1.0 : std::ceil(blocks / slots) * slots / blocks;
  }

  /// The fastest of the GEMM kernels for its shape (the header comment lists them).
  static Gemm fastest_gemm(DeviceSpec const& d, double batch, double m, double n, double k, bool f16, double bytes, bool split_k) {
    double element = f16 ? 2 : 4;
    Gemm best = tiled_gemm(d, batch, m, n, k, f16 ? d.matrix_f16_per_us() : d.matrix_f32_per_us(), element, bytes, split_k);
    if (std::min(m, n) <= gemv_max) {
      // One thread per four matrix elements, every row (or column) of the vector side in it.
      Gemm gemv{2 * batch * m * n * k, bytes, d.fp32_per_us(), batch * std::max(m, n) * k / 4 / d.resident_threads()};
      if (gemv.work_us(d) < best.work_us(d)) best = gemv;
    }
    return best;
  }

  static constexpr double k_step = 32;           // K a tile loads per pipeline stage
  static constexpr double pipeline_stages = 4;   // stages a tile keeps in flight
  static constexpr double min_split_k = k_step;  // K per split: one k-step of a tile
  static constexpr double gemv_max = 8;      // M or N at most this: a matrix-vector kernel
  static constexpr double winograd_block = 32;   // output channels and 2x2 tiles per fused Winograd block
  static constexpr double winograd_points = 16;  // F(2x2, 3x3): a 4x4 transformed tile

  DeviceSpec device_;
  std::shared_ptr<detail::SignatureCache> cache_;
};

}  // namespace autograph
