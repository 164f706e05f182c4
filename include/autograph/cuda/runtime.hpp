#pragma once
// CudaGraphRuntime: the Runtime concept (runtime/runtime.hpp) on a real GPU. measure() lowers
// a graph, plans its memory, captures its schedule into a CUDA graph, replays it `warmup`
// times, then times at least 50 replays launched back to back between one pair of CUDA
// events and reports the mean per replay in ms. The
// optimizer's on-board verification runs through it unchanged:
//
//   cuda::CudaGraphRuntime gpu;
//   Optimizer<decltype(g), rules::Default, MixedCriticalPath<0.25>, cuda::CudaGraphRuntime> opt(..., gpu);
//
// For results, compile(graph, schedule).run(inputs) gives the outputs (tests compare them
// with ReferenceExecutor). Weights without data are given reproducible random data when
// measuring (timing does not depend on values); compile() requires real data, like the
// reference executor.
#include <cctype>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/cost/device.hpp"
#include "autograph/cost/measured_cost.hpp"
#include "autograph/cuda/device.hpp"
#include "autograph/cuda/executable.hpp"
#include "autograph/cuda/lower.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/runtime/runtime.hpp"
#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/nimble.hpp"

namespace autograph::cuda {

/// The built-in DeviceSpec (cost/device.hpp) a CUDA device name denotes: the one whose key
/// the name contains ("NVIDIA H100 80GB HBM3" -> H100, "NVIDIA A100-SXM4-80GB" -> A100), or
/// null when none does.
inline DeviceSpec const* matching_device_spec(std::string_view cuda_name) {
  auto norm = [](std::string_view s) {
    std::string r;
    for (char c : s)
      if (std::isalnum(static_cast<unsigned char>(c))) r += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return r;
  };
  std::string name = norm(cuda_name);
  for (auto const& d : devices::all)
    if (name.find(norm(d.key)) != std::string::npos) return &d;
  return nullptr;
}

/// How a measured cost table names this device: the matching DeviceSpec's name ("H100 SXM"),
/// so MeasuredCost(table, devices::H100::spec) finds the entries; the CUDA name otherwise.
inline std::string cost_device_key(std::string_view cuda_name) {
  auto const* d = matching_device_spec(cuda_name);
  return d ? std::string(d->name) : std::string(cuda_name);
}

struct RuntimeOptions {
  int device = 0;
  bool allow_tf32 = true;        // matrix products on TF32 tensor cores (what PyTorch does by default for convolutions)
  int warmup = 10;               // untimed replays before timing
  int replays = 50;              // timed replays, at least 50; measure() reports their mean
  std::uint64_t weight_seed = 0; // random data for shape-only weights when measuring
  std::size_t constant_cache_bytes = std::size_t{4} << 30;
};

/// One lowered graph, ready to time under many schedules (IOS times every stage it
/// considers): lowering, constant upload and input upload happen once.
class PreparedGraph {
 public:
  PreparedGraph(std::shared_ptr<LoweredGraph const> lowered, RuntimeOptions const& options, std::shared_ptr<ScratchArena> scratch)
      : lowered_(std::move(lowered)), options_(options), scratch_(std::move(scratch)) {
    std::vector<Tensor> inputs;
    std::uint64_t seed = options_.weight_seed;
    for (auto const& in : lowered_->inputs) inputs.push_back(Tensor::random(in.desc.shape, hash_combine(seed, in.id)));
    write_inputs(*lowered_, inputs);  // the static input buffers: every executable of this graph reads them
  }

  /// Milliseconds per replay of `s` (possibly partial: the kernels it leaves out count as
  /// done), the mean of the timed replays (GraphExecutable::time).
  double measure(Schedule const& s) {
    GraphExecutable exe(lowered_, s, {.complete = false}, scratch_);
    return exe.time(options_.warmup, options_.replays);
  }
  std::shared_ptr<LoweredGraph const> const& lowered() const { return lowered_; }

 private:
  std::shared_ptr<LoweredGraph const> lowered_;
  RuntimeOptions options_;
  std::shared_ptr<ScratchArena> scratch_;
};

class CudaGraphRuntime {
 public:
  /// Opens the device. @throws CudaError saying why when there is no usable GPU, Error for
  /// options out of range.
  explicit CudaGraphRuntime(RuntimeOptions options = {})
      : options_(options), device_(std::make_shared<Device>(options.device)),
        cache_(std::make_shared<ConstantCache>(options.constant_cache_bytes)), scratch_(std::make_shared<ScratchArena>()),
        cost_(CostTable{}, roofline_spec()) {
    if (options_.replays < 50) throw Error("CudaGraphRuntime: replays must be at least 50, got " + std::to_string(options_.replays));
    if (options_.warmup < 0) throw Error("CudaGraphRuntime: warmup must be >= 0");
  }

  /// "measured (CUDA graphs, NVIDIA H100 80GB HBM3, mean of 50 back-to-back replays, TF32)"
  std::string kind() const {
    return "measured (CUDA graphs, " + device_->info().name + ", mean of " + std::to_string(options_.replays) + " back-to-back replays" +
           (options_.allow_tf32 ? ", TF32)" : ", FP32)");
  }
  Device& device() { return *device_; }
  RuntimeOptions const& options() const { return options_; }

  /// The per-kernel cost model a search ranks candidates with before measuring them here:
  /// measured times where set_cost_table() gave them (profile() makes such a table), the
  /// roofline of the matching built-in device (H100 when none matches) for the rest.
  MeasuredCost const& cost_model() const { return cost_; }
  void set_cost_table(CostTable table) { cost_ = MeasuredCost(std::move(table), roofline_spec()); }

  /// Latency in ms of `g` under Nimble's multi-stream schedule.
  template <class Set>
  double measure(Graph<Set> const& g) {
    return measure(g, schedule::nimble(KernelDag(g)));
  }
  /// Latency in ms of running schedule `s` of `g` (possibly only some of its kernels).
  template <class Set>
  double measure(Graph<Set> const& g, Schedule const& s) {
    return prepare(g).measure(s);
  }
  /// Lowers `g` once for timing many schedules of it.
  template <class Set>
  PreparedGraph prepare(Graph<Set> const& g) {
    return PreparedGraph(lower(g, LowerOptions{.allow_tf32 = options_.allow_tf32, .random_weights = options_.weight_seed}), options_, scratch_);
  }
  /// An executable for results: every weight must have data.
  template <class Set>
  GraphExecutable compile(Graph<Set> const& g, Schedule const& s, ExecOptions exec = {}, LowerOptions lowering = {}) {
    lowering.allow_tf32 = lowering.allow_tf32 && options_.allow_tf32;
    return GraphExecutable(lower(g, lowering), s, exec);
  }
  /// Lowers `g` on this runtime's device, sharing uploaded constants with earlier lowerings.
  template <class Set>
  std::shared_ptr<LoweredGraph const> lower(Graph<Set> const& g, LowerOptions const& lowering) {
    device_->make_current();
    return cuda::lower(g, device_.get(), lowering, cache_.get());
  }

 private:
  DeviceSpec const& roofline_spec() const {
    auto const* d = matching_device_spec(device_->info().name);
    return d ? *d : devices::H100::spec;
  }

  RuntimeOptions options_;
  std::shared_ptr<Device> device_;
  std::shared_ptr<ConstantCache> cache_;
  std::shared_ptr<ScratchArena> scratch_;
  MeasuredCost cost_;
};

static_assert(Runtime<CudaGraphRuntime>);

}  // namespace autograph::cuda
