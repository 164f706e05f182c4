#pragma once
// RooflineCost: a kernel's time from its work and a device's peaks, memoized per signature.
//
//   time = latency + max(flops / (rate · fill), bytes / (bandwidth · fill))
//
// `fill` is the fraction of the device the kernel occupies (its thread blocks over what the
// SMs hold at once, capped at 1). A kernel that fills a tenth of the SMs gets a tenth of the
// device's compute and bandwidth, which is what makes small kernels latency-bound and what
// the simulated runtime shares out when kernels run concurrently.
//
// Rates per kind of kernel:
// - Conv2D (groups with >= 8 channels in and out) and MatMul: implicit GEMM on tensor cores
//   (TF32 for float32 where the device has it, FP16 for float16), 64x64 output tiles, two
//   tiles resident per SM. Flops are counted on the tile-padded problem, so a 289-row GEMM
//   pays for 320 rows (tile quantisation is the per-op efficiency).
// - depthwise and thin grouped convolutions: CUDA-core FP32, one thread per output element.
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
    auto gemm_fill = [&](double batch, double m, double n, double k) {
      double tiles = batch * std::ceil(m / tile) * std::ceil(n / tile);
      flops = 2 * tiles * tile * tile * k;  // the padded problem the tensor cores actually compute
      return tiles / (tiles_per_sm * d.sm_count);
    };
    auto threads_fill = [&](double threads) { return threads / d.resident_threads(); };
    bool f16 = !in.empty() && in[0].dtype == DType::float16;

    if (auto const* conv = op.get_if<Conv2D>()) {
      auto const& w = in[1].shape;
      auto const& y = out[0].shape;
      double groups = static_cast<double>(conv->groups);
      double k_per_group = static_cast<double>(w[0]) / groups;
      double c_per_group = static_cast<double>(w[1]);
      if (k_per_group >= 8 && c_per_group >= 8) {
        rate = f16 ? d.matrix_f16_per_us() : d.matrix_f32_per_us();
        fill = gemm_fill(groups, static_cast<double>(y[0] * y[2] * y[3]), k_per_group, c_per_group * static_cast<double>(w[2] * w[3]));
      } else {
        fill = threads_fill(static_cast<double>(y.numel()));
      }
    } else if (op.is<MatMul>()) {
      auto const& y = out[0].shape;
      auto const& a = in[0].shape;
      std::size_t r = y.rank();
      double batch = 1;  // the product of the leading dimensions (not numel / (M*N): M or N may be 0)
      for (std::size_t i = 0; i + 2 < r; ++i) batch *= static_cast<double>(y[i]);
      rate = f16 ? d.matrix_f16_per_us() : d.matrix_f32_per_us();
      fill = gemm_fill(batch, static_cast<double>(y[r - 2]), static_cast<double>(y[r - 1]), static_cast<double>(a[a.rank() - 1]));
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
    fill = std::clamp(fill, 1.0 / d.resident_threads(), 1.0);
    double work = std::max(flops / (rate * fill), bytes / (d.bytes_per_us() * fill));
    return KernelCost{d.launch_us + work, fill, d.launch_us};
  }

 private:
  DeviceSpec device_;
  std::shared_ptr<detail::SignatureCache> cache_;
};

}  // namespace autograph
