#pragma once
// The profiler: measures every distinct operator signature of a graph on the GPU and writes
// the measured cost table the CPU side reads (cost/measured_cost.hpp: CostTable, MeasuredCost):
//
//   {"format": "autograph-cost-table", "version": 1,
//    "devices": {"H100 SXM": {"Conv2D{s1,1 p1,1,1,1}(f32[1,64,56,56],f32[64,64,3,3])": 12.5, ...}},
//    "measured": {"device": "NVIDIA H100 80GB HBM3", "driver": "580.65.06", "cuda_runtime": "13.0",
//                 "cudnn": "9.19.0", "cublas": "13.0.2", "date": "2025-11-22T03:00:00Z", ...}}
//
// The loader reads "format", "version" and "devices" and ignores "measured", which says where
// the numbers come from. Devices are keyed by the DeviceSpec name (cost/device.hpp) the CUDA
// device name matches ("NVIDIA H100 80GB HBM3" -> "H100 SXM"), so MeasuredCost(table,
// devices::H100::spec) finds them.
//
// One signature's time is the marginal cost of one more launch inside a CUDA graph: the
// op alone, and `copies` independent copies of it (all reading the same inputs, each writing
// its own output) on one stream, are each timed as a captured graph (the mean of the runtime's
// back-to-back replays); the time is (T(copies) - T(1)) / (copies - 1). That cancels the graph
// launch and includes the in-graph dispatch of a kernel, which is what a kernel costs inside a
// model. A Concat the runtime writes in place inside a model costs 0 and is not timed: its
// copies on graph inputs (never placed) would time a copy the runtime elides.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autograph/cost/device.hpp"
#include "autograph/cost/inference_kernels.hpp"
#include "autograph/cost/measured_cost.hpp"
#include "autograph/cuda/runtime.hpp"
#include "autograph/graph/stats.hpp"
#include "autograph/runtime/profiling.hpp"
#include "autograph/schedule/sequential.hpp"

namespace autograph::cuda {

struct ProfileOptions {
  int copies = 11;         // launches in the "many" graph (see the header comment); at least 2
  std::string device_key;  // the table's device name; empty: cost_device_key(the CUDA device name)
};

struct ProfileEntry {
  std::string signature;     // op_signature(): how the cost table names the kernel
  double us = 0;             // marginal time of one launch (0: a Concat written in place)
  std::size_t occurrences = 0;  // nodes of the profiled graphs with this signature
};

struct ProfileResult {
  DeviceInfo device;
  std::string device_key;
  std::string date;  // UTC, ISO 8601
  int warmup = 0, replays = 0, copies = 0;
  bool tf32 = true;
  std::vector<ProfileEntry> entries;

  /// The measurements as a cost table (merge it into one with CostTable::set to combine profiles).
  CostTable table() const {
    CostTable t;
    for (auto const& e : entries) t.set(device_key, e.signature, {e.us, std::nullopt});
    return t;
  }
  std::string to_json(int indent = 2) const {
    nlohmann::json j = nlohmann::json::parse(table().dump(-1));
    nlohmann::json occurrences = nlohmann::json::object();
    for (auto const& e : entries) occurrences[e.signature] = e.occurrences;
    j["measured"] = {{"device", device.name},
                     {"device_key", device_key},
                     {"compute_capability", std::to_string(device.compute_major) + "." + std::to_string(device.compute_minor)},
                     {"sm_count", device.sm_count},
                     {"driver", device.driver},
                     {"cuda_driver_api", device.cuda_driver_api},
                     {"cuda_runtime", device.cuda_runtime},
                     {"cudnn", device.cudnn},
                     {"cublas", device.cublas},
                     {"date", date},
                     {"tf32", tf32},
                     {"warmup", warmup},
                     {"replays", replays},
                     {"copies", copies},
                     {"method", "marginal time of one launch inside a CUDA graph: (T(copies) - T(1)) / (copies - 1), "
                                "each T the mean of back-to-back replays; a Concat written in place 0"},
                     {"occurrences", occurrences}};
    return j.dump(indent);
  }
  void save(std::filesystem::path const& path) const {
    std::ofstream f(path);
    if (!f) throw Error("cannot write cost table '" + path.string() + "'");
    f << to_json() << "\n";
  }
};

using autograph::utc_now;

/// Microseconds a signature costs without being timed, where the runtime runs it with no
/// kernel inside a model: a Concat whose inputs their producers write in place
/// (concat_in_place). Nullopt: time it.
inline std::optional<double> elided_cost_us(AnyOp const& op, std::span<TensorDesc const> in) {
  if (auto const* c = op.get_if<Concat>(); c && concat_in_place(*c, in)) return 0.0;
  return std::nullopt;
}

/// Microseconds one launch of `op` on inputs `in` costs inside a CUDA graph (see the header comment).
template <class Set>
double measure_signature(AnyOp const& op, std::span<TensorDesc const> in, CudaGraphRuntime& gpu, ProfileOptions const& o = {}) {
  if (o.copies < 2) throw Error("profile: copies must be at least 2, got " + std::to_string(o.copies));
  if (auto us = elided_cost_us(op, in)) return *us;
  auto time_copies = [&](int copies) {
    Graph<Set> h = copies_graph<Set>(op, in, copies);
    return gpu.measure(h, schedule::sequential(KernelDag(h)));
  };
  double one = time_copies(1), many = time_copies(o.copies);
  return std::max(0.0, (many - one) / (o.copies - 1)) * 1000.0;
}

/// Profiles every distinct kernel signature of `graphs` (nodes that launch a kernel at
/// inference, kernel_mask()). Weights need no data.
template <class Set>
ProfileResult profile(std::span<Graph<Set> const> graphs, CudaGraphRuntime& gpu, ProfileOptions const& o = {}) {
  ProfileResult r;
  r.device = gpu.device().info();
  r.device_key = o.device_key.empty() ? cost_device_key(r.device.name) : o.device_key;
  r.date = utc_now();
  r.warmup = gpu.options().warmup;
  r.replays = gpu.options().replays;
  r.copies = o.copies;
  r.tf32 = gpu.options().allow_tf32;
  std::map<std::string, std::size_t> index;
  for (auto const& g : graphs) {
    auto kernel = kernel_mask(g);
    for (NodeId id : topological_order(g)) {
      if (!kernel[id]) continue;
      auto in = input_descs(g, id);
      std::string sig = op_signature(g[id].op, in);
      if (auto it = index.find(sig); it != index.end()) {
        ++r.entries[it->second].occurrences;
        continue;
      }
      double us = 0;
      try {
        us = measure_signature<Set>(g[id].op, in, gpu, o);
      } catch (Error const& e) {
        throw CudaError("profiling " + g.label(id) + " (" + sig + "): " + e.what());
      }
      index.emplace(sig, r.entries.size());
      r.entries.push_back({sig, us, 1});
    }
  }
  return r;
}

template <class Set>
ProfileResult profile(Graph<Set> const& g, CudaGraphRuntime& gpu, ProfileOptions const& o = {}) {
  return profile(std::span<Graph<Set> const>(&g, 1), gpu, o);
}

}  // namespace autograph::cuda
