#pragma once
// The CPU profiler: measures every distinct kernel signature of a graph on the CPU runtime and
// writes the measured cost table the cost models read (cost/measured_cost.hpp), keyed by this
// machine's processor name, the name host_device_spec() gives the CPU runtime's roofline:
//
//   {"format": "autograph-cost-table", "version": 1,
//    "devices": {"AMD EPYC 7B13": {"Conv2D{s1,1 p1,1,1,1}(f32[1,64,56,56],f32[64,64,3,3])": 812.5, ...}},
//    "measured": {"cpu": "AMD EPYC 7B13", "cores": 2, "date": "2026-11-24T23:00:00Z", ...}}
//
// A signature's time is the marginal cost of one more such kernel in a run: the op alone and
// `copies` independent copies of it on one stream (each kernel alone, with every core) are
// each timed as a run (median of the runtime's runs); the time is (T(copies) - T(1)) /
// (copies - 1). That cancels the fixed cost of a run (waking nothing, copying nothing) and
// keeps each kernel's own dispatch, which is what a kernel costs inside a model. As in a model,
// each copy's inputs and outputs are channels-last where the kernel takes and gives that layout
// (ProfileOptions::boundary), and it reads the model's weights as weights, which the runtime
// prepares once, not as inputs it would take as they come on every run.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autograph/cost/inference_kernels.hpp"
#include "autograph/cost/measured_cost.hpp"
#include "autograph/cpu/runtime.hpp"
#include "autograph/graph/stats.hpp"
#include "autograph/graph/topological_order.hpp"
#include "autograph/runtime/profiling.hpp"
#include "autograph/schedule/sequential.hpp"

namespace autograph::cpu {

struct ProfileOptions {
  int copies = 5;  // kernels in the "many" run (see the header comment); at least 2
  // Each T the fastest of the runs instead of their median. On a machine that other processes
  // load, a run is slowed by whatever else holds the cores at the time, never sped up, so the
  // fastest run is the closest to the kernel's own time (on this 2-core machine at a load
  // average of 5.5, SqueezeNet's median-based profile summed to 51 ms where the whole model ran
  // in 20-30 ms).
  bool fastest = false;
  // The kernels' 4-D inputs and outputs channels-last where they take and give that layout, as
  // their neighbours leave them in a model (the runtime keeps such tensors channels-last from
  // kernel to kernel), not plain with a reorder in and out of every copy. Measured on the 2-core
  // Zen 3 VM (2026-11-29, benchmark/cpu_op_profile): timed plain, Inception-v3's 14 pooling
  // kernels summed to 74.5 ms and all of its kernels to 206 ms, twice its whole run on one
  // stream (103 ms). The placement's groups are timed the same way (cpu/backends/place.hpp).
  BoundaryChannelsLast boundary{.inputs = true, .outputs = true};
  std::function<void(std::size_t done, std::size_t total, std::string const& signature)> progress = {};
};

struct ProfileEntry {
  std::string signature;        // op_signature(): how the cost table names the kernel
  double us = 0;                // median marginal time of one kernel
  std::size_t occurrences = 0;  // nodes of the profiled graphs with this signature
};

struct ProfileResult {
  std::string cpu;  // the table's device name: cpu_model_name()
  int cores = 0;
  std::string date;  // UTC, ISO 8601
  int warmup = 0, runs = 0, copies = 0;
  bool fastest = false;  // each T the fastest run (ProfileOptions::fastest), else the median
  BoundaryChannelsLast boundary;  // ProfileOptions::boundary
  std::vector<ProfileEntry> entries;

  CostTable table() const {
    CostTable t;
    for (auto const& e : entries) t.set(cpu, e.signature, {e.us, std::nullopt});
    return t;
  }
  std::string to_json(int indent = 2) const {
    nlohmann::json j = nlohmann::json::parse(table().dump(-1));
    nlohmann::json occurrences = nlohmann::json::object();
    for (auto const& e : entries) occurrences[e.signature] = e.occurrences;
    j["measured"] = {{"cpu", cpu},
                     {"cores", cores},
                     {"date", date},
                     {"warmup", warmup},
                     {"runs", runs},
                     {"copies", copies},
                     {"method", std::string("marginal time of one kernel in a run on the CPU runtime, alone with every core: "
                                            "(T(copies) - T(1)) / (copies - 1), inputs ") + (boundary.inputs ? "channels-last where the kernel takes them" : "plain") +
                                    ", outputs " + (boundary.outputs ? "channels-last where the kernel gives them" : "plain") + ", each T the " +
                                    (fastest ? "fastest" : "median") + " of the runs"},
                     {"occurrences", occurrences}};
    return j.dump(indent);
  }
};


/// Microseconds one kernel of `op` on inputs `in` costs in a run (see the header comment).
/// `constant[i]`: input i is a weight (a Weight in the model), which the copies read as one too.
template <class Set, class Policy>
double measure_signature(AnyOp const& op, std::span<TensorDesc const> in, BasicCpuRuntime<Policy>& cpu, ProfileOptions const& o = {},
                         std::span<char const> constant = {}) {
  if (o.copies < 2) throw Error("profile: copies must be at least 2, got " + std::to_string(o.copies));
  auto time_copies = [&](int copies) {
    Graph<Set> h = copies_graph<Set>(op, in, copies, constant);
    Schedule s = schedule::sequential(KernelDag(h));
    if (!o.fastest) return cpu.measure(h, s, o.boundary);
    auto const& c = cpu.options();
    auto lowered = lower(h, LowerOptions{.random_weights = c.weight_seed, .channels_last = c.channels_last, .boundary = o.boundary});
    auto samples = PreparedCpuGraph(std::move(lowered), c).samples(s);
    return *std::ranges::min_element(samples);
  };
  double one = time_copies(1), many = time_copies(o.copies);
  return std::max(0.0, (many - one) / (o.copies - 1)) * 1000.0;
}

/// Profiles every distinct kernel signature of `graphs` (nodes that run a kernel at
/// inference, kernel_mask()). Weights need no data.
template <class Set, class Policy>
ProfileResult profile(std::span<Graph<Set> const> graphs, BasicCpuRuntime<Policy>& cpu, ProfileOptions const& o = {}) {
  ProfileResult r;
  r.cpu = cpu_model_name();
  r.cores = cpu.cores();
  r.date = utc_now();
  r.warmup = cpu.options().warmup;
  r.runs = cpu.options().runs;
  r.copies = o.copies;
  r.fastest = o.fastest;
  r.boundary = o.boundary;
  struct Kernel {
    Graph<Set> const* g;
    NodeId id;
  };
  std::map<std::string, std::size_t> index;
  std::vector<Kernel> pending;  // one node per signature, measured below
  for (auto const& g : graphs) {
    auto kernel = kernel_mask(g);
    for (NodeId id : topological_order(g)) {
      if (!kernel[id]) continue;
      std::string sig = op_signature(g[id].op, input_descs(g, id));
      if (auto it = index.find(sig); it != index.end()) {
        ++r.entries[it->second].occurrences;
        continue;
      }
      index.emplace(sig, r.entries.size());
      r.entries.push_back({sig, 0, 1});
      pending.push_back({&g, id});
    }
  }
  for (std::size_t i = 0; i < pending.size(); ++i) {
    auto const& [g, id] = pending[i];
    if (o.progress) o.progress(i, pending.size(), r.entries[i].signature);
    auto in = input_descs(*g, id);
    std::vector<char> constant;  // which inputs are the model's weights
    for (Value v : (*g)[id].inputs) constant.push_back((*g)[v.node].op.template is<Weight>());
    try {
      r.entries[i].us = measure_signature<Set>((*g)[id].op, in, cpu, o, constant);
    } catch (Error const& e) {
      throw ExecutionError("profiling " + g->label(id) + " (" + r.entries[i].signature + "): " + e.what());
    }
  }
  return r;
}

template <class Set, class Policy>
ProfileResult profile(Graph<Set> const& g, BasicCpuRuntime<Policy>& cpu, ProfileOptions const& o = {}) {
  return profile(std::span<Graph<Set> const>(&g, 1), cpu, o);
}

}  // namespace autograph::cpu
