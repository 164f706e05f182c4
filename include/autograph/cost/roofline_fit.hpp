#pragma once
// fit_roofline: a device's free roofline parameters fitted to measured kernel times, so that
// RooflineCost (and the SimulatedRuntime over it) predicts kernels as this device runs them.
//
// The fit is of *kernels* (a profile: each signature measured alone), never of whole-graph
// latencies: those are what a calibrated model is judged by (benchmark/cpu_rank.cpp).
//
// Free parameters (each can be held at the start device's value):
//   compute_efficiency    reachable fraction of the matrix peak (tf32_tflops, else fp32_tflops)
//   fp32_tflops           the rate of non-GEMM kernels (depthwise convolutions, pooling, ...)
//                         when the device has a separate matrix rate (tf32_tflops > 0)
//   bandwidth_efficiency  reachable fraction of the DRAM peak (above 1 where kernels run from caches)
//   launch_us             the fixed time of every kernel (dispatch, thread wake-up, ramp-up)
//
// Loss: weighted least squares on log time, Σ w·(ln t̂ − ln t)². Kernel times span four orders
// of magnitude (a 1 µs ReLU to a 10 ms convolution); least squares on time itself would fit
// only the few largest convolutions and leave the many small kernels, whose fixed costs decide
// the branchy graphs, wrong by any factor. On log time every kernel counts by its relative
// error, which is what a ranking of graphs made of them needs, and a kernel's weight is how
// often it occurs. Parameters are searched as logarithms (they are positive rates and times
// spanning magnitudes) with Nelder–Mead from a grid of starts (fit_roofline says why).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/cost/detail/nelder_mead.hpp"
#include "autograph/cost/device.hpp"
#include "autograph/cost/roofline.hpp"

namespace autograph {

/// One measured kernel: what it computes, on what, and how long it took.
struct KernelTime {
  AnyOp op;
  std::vector<TensorDesc> in, out;
  double us = 0;           // measured microseconds
  double weight = 1;       // how much it counts (occurrences in the profiled graphs)
  std::string signature;   // how errors and reports name it (op_signature())
};

struct RooflineFitOptions {
  bool compute = true;      // fit compute_efficiency
  bool vector_rate = true;  // fit fp32_tflops (only where the device has a separate matrix rate)
  bool bandwidth = true;    // fit bandwidth_efficiency
  bool launch = true;       // fit launch_us
  std::size_t max_evaluations = 20'000;  // per local search (the grid's scouts share it)
};

struct RooflineFit {
  DeviceSpec device;                 // the start device with the fitted parameters
  std::vector<std::string> fitted;   // names of the parameters fitted
  double rms_log_error = 0;          // sqrt of the weighted mean of (ln t̂ − ln t)² at the fit
  double start_rms_log_error = 0;    // the same for the start device
  std::size_t kernels = 0;           // kernel times fitted
  std::size_t skipped = 0;           // measured as 0 µs (below the profiler's resolution) or running nothing: no log time
  std::size_t compute_bound = 0, bandwidth_bound = 0;  // fitted kernels under each roof at the fit
  std::size_t evaluations = 0;
};

/// The roofline's time of one kernel on `d` (µs).
inline double roofline_us(DeviceSpec const& d, KernelTime const& k) { return RooflineCost::compute(d, k.op, k.in, k.out).us; }

/// Fits the free parameters of `start` to `kernels` (see the header comment).
/// @pre start's name and key outlive the result: the fitted device shares them.
/// @throws Error naming the kernel whose time or weight is not a finite number >= 0 (weight > 0),
///         when fewer kernels with a positive time remain than free parameters + 1, or when
///         no parameter is free.
inline RooflineFit fit_roofline(DeviceSpec const& start, std::span<KernelTime const> kernels, RooflineFitOptions const& o = {}) {
  std::vector<KernelTime const*> used;
  RooflineFit fit;
  double smallest = std::numeric_limits<double>::infinity();
  for (auto const& k : kernels) {
    if (!std::isfinite(k.us) || k.us < 0)
      throw Error("roofline fit: kernel '" + k.signature + "' has a measured time of " + std::to_string(k.us) + " us: times must be finite and >= 0");
    if (!std::isfinite(k.weight) || k.weight <= 0)
      throw Error("roofline fit: kernel '" + k.signature + "' has weight " + std::to_string(k.weight) + ": weights must be finite and > 0");
    if (k.us == 0 || !runs_kernel(k.op, k.in, k.out)) {
      ++fit.skipped;
      continue;
    }
    used.push_back(&k);
    smallest = std::min(smallest, k.us);
  }

  // The free parameters, each a field of DeviceSpec searched as its logarithm.
  struct Parameter {
    std::string name;
    double DeviceSpec::*field;
    double start;
  };
  std::vector<Parameter> free;
  auto positive_or = [](double v, double fallback) { return v > 0 ? v : fallback; };
  if (o.compute) free.push_back({"compute_efficiency", &DeviceSpec::compute_efficiency, positive_or(start.compute_efficiency, 1)});
  if (o.vector_rate && start.tf32_tflops > 0) free.push_back({"fp32_tflops", &DeviceSpec::fp32_tflops, positive_or(start.fp32_tflops, start.tf32_tflops)});
  if (o.bandwidth) free.push_back({"bandwidth_efficiency", &DeviceSpec::bandwidth_efficiency, positive_or(start.bandwidth_efficiency, 1)});
  // A start of 0 has no logarithm: half the shortest kernel is an overhead the data can move either way.
  if (o.launch) free.push_back({"launch_us", &DeviceSpec::launch_us, positive_or(start.launch_us, used.empty() ? 1 : smallest / 2)});
  if (free.empty()) throw Error("roofline fit: no parameter is free (every one of RooflineFitOptions is off)");
  if (used.size() < free.size() + 1)
    throw Error("roofline fit: " + std::to_string(used.size()) + " kernel times above 0 us (" + std::to_string(kernels.size()) + " given) for " +
                std::to_string(free.size()) + " free parameters: at least " + std::to_string(free.size() + 1) + " are needed (profile more kernels)");

  auto device_at = [&](std::vector<double> const& x) {
    DeviceSpec d = start;
    for (std::size_t i = 0; i < free.size(); ++i) d.*free[i].field = std::exp(x[i]);
    return d;
  };
  double total_weight = 0;
  for (auto const* k : used) total_weight += k->weight;
  auto loss_on = [&](DeviceSpec const& d) {
    double s = 0;
    for (auto const* k : used) {
      double e = std::log(std::max(roofline_us(d, *k), 1e-12)) - std::log(k->us);
      s += k->weight * e * e;
    }
    return s / total_weight;
  };
  auto loss = [&](std::vector<double> const& x) { return loss_on(device_at(x)); };

  fit.start_rms_log_error = std::sqrt(loss_on(start));
  // The loss is not convex: a kernel can be explained by either roof (a depthwise convolution
  // as slow compute or as slow memory), and a local search from the start alone settles in
  // whichever explanation is closer. So a short search runs from every point of a grid
  // (each parameter at 1, 1/5 and 1/25 of its start), and the best few are searched to the end,
  // each restarted from its own result until that no longer improves (a simplex can collapse
  // on a kink short of the minimum).
  std::vector<std::vector<double>> starts(1, std::vector<double>{});
  for (auto const& p : free) {
    std::vector<std::vector<double>> next;
    for (auto const& s : starts)
      for (double f : {1.0, 0.2, 0.04}) {
        next.push_back(s);
        next.back().push_back(std::log(p.start * f));
      }
    starts = std::move(next);
  }
  std::size_t const scout = std::max<std::size_t>(100, o.max_evaluations / (4 * starts.size()));
  std::vector<detail::NelderMeadResult> scouted;
  for (auto const& s : starts) {
    scouted.push_back(detail::nelder_mead(loss, s, 1.0, 1e-16, scout));
    fit.evaluations += scouted.back().evaluations;
  }
  std::ranges::sort(scouted, {}, &detail::NelderMeadResult::value);
  std::vector<double> x = scouted.front().x;
  double best = scouted.front().value;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, scouted.size()); ++i) {
    auto y = scouted[i].x;
    double value = scouted[i].value;
    for (std::size_t rounds = 0; rounds < 20; ++rounds) {
      auto r = detail::nelder_mead(loss, y, rounds == 0 ? 0.5 : 0.1, 1e-18, o.max_evaluations);
      fit.evaluations += r.evaluations;
      bool improved = r.value < value - 1e-15 * std::max(value, 1e-30);
      if (r.value <= value) y = std::move(r.x), value = r.value;
      if (!improved) break;
    }
    if (value < best) x = y, best = value;
  }
  fit.device = device_at(x);
  for (auto const& p : free) fit.fitted.push_back(p.name);
  fit.rms_log_error = std::sqrt(best);
  fit.kernels = used.size();
  // Which roof decides each kernel at the fit: the one whose removal changes its time.
  DeviceSpec no_bandwidth = fit.device;
  no_bandwidth.bandwidth_efficiency *= 1e12;
  for (auto const* k : used) {
    bool compute = roofline_us(no_bandwidth, *k) >= roofline_us(fit.device, *k) * (1 - 1e-12);
    ++(compute ? fit.compute_bound : fit.bandwidth_bound);
  }
  return fit;
}

}  // namespace autograph
