// `autograph validate-sim FILE`: holds the simulator against published GPU measurements.
//
//   autograph validate-sim ../shared/data/published-latencies/records.json [--time-limit 10]
//
// FILE is a JSON array of records (the format of ../shared/data/published-latencies/README.md):
// `source`, `table`, `gpu`, `batch` (null: not stated), `model`, `config`, `kind` (latency,
// speedup, speedup_range, ordering), `value`, `unit`. Every record the simulator can run
// (a zoo model, a simulated device, a configuration this library implements) is simulated and
// printed beside its published value; every other record is listed with the reason, and every
// record name read as a differently named zoo model or size is listed with it (the IOS and
// MetaFlow works' SqueezeNet runs squeezenet_ios, MetaFlow's RNNTC rnntc_metaflow: the networks
// their code builds, zoo_model() and network_resolution()). Each system runs as its paper's
// experiments ran it: a schedule IOS optimized for another batch or GPU is searched there and
// replayed (schedule::Ios::replay), "M (per block)" with "A / B, best block" takes the largest
// A / B over M's blocks run alone, IOS's greedy stages a RandWire node as one operator, and
// IOS's "TASO" on NASNet and SqueezeNet is TASO's runtime unoptimized (taso_seq), and IOS's
// variants (IOS-Parallel, IOS-Merge) and pruning ("IOS (r=1, s=8)") run as named. Then, per
// source and overall, the three figures the simulator is judged by:
// - absolute latency: the median |ln(simulated / published)| over latency records;
// - within-paper speedups: the median |ln(simulated ratio / published ratio)| over speedup
//   records, the pairs of latency records of one table and model, and speedup ranges (0 when
//   the simulated speedup lies in the range, else the distance to its nearer end);
// - orderings: the fraction of pairwise orderings reproduced (ordering records, pairs of
//   latency records, speedups and ranges read as "which of the two is faster").
// Each median is also printed as a factor, exp(median), the form the goals are stated in.
#include <autograph/experiments/baselines.hpp>
#include <autograph/graph/subgraph.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <autograph/rules/apply_greedily.hpp>
#include <autograph/rules/library/conv_folding.hpp>
#include <autograph/rules/library/fusion.hpp>
#include <autograph/rules/library/merge.hpp>
#include <autograph/schedule/ios.hpp>
#include <autograph/schedule/sequential.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "command.hpp"

// A named namespace: the tool builds as one unity file, where every file's anonymous namespace is one.
namespace validate_sim {

using namespace autograph;
using nlohmann::json;

struct Options {
  std::string file;
  double time_limit = 10;  // seconds per searching configuration (taso, metaflow)
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

/// One record of the file, checked.
struct Record {
  std::size_t index = 0;
  std::string source, table, gpu, model, config, kind, unit;
  std::optional<std::int64_t> batch;
  double value = 0;            // latency (ms), speedup, or 1 for an ordering
  double low = 0, high = 0;    // speedup_range
  bool approximate = false;
};

std::vector<Record> read_records(std::string const& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open the file");
  json j;
  try {
    j = json::parse(in);
  } catch (json::exception const& e) {
    throw Error(path + ": not valid JSON: " + e.what());
  }
  if (!j.is_array()) throw Error(path + ": expected a JSON array of records, got a " + std::string(j.type_name()));
  std::vector<Record> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    json const& r = j[i];
    std::string where = path + ": record " + std::to_string(i);
    if (!r.is_object()) throw Error(where + ": expected an object, got a " + std::string(r.type_name()));
    auto text = [&](char const* key) {
      if (!r.contains(key) || !r[key].is_string()) throw Error(where + ": '" + key + "' is missing or not a string");
      return r[key].get<std::string>();
    };
    Record rec;
    rec.index = i;
    rec.source = text("source");
    rec.gpu = text("gpu");
    rec.model = text("model");
    rec.config = text("config");
    rec.kind = text("kind");
    rec.table = r.contains("table") && r["table"].is_string() ? r["table"].get<std::string>() : "";
    rec.unit = r.contains("unit") && r["unit"].is_string() ? r["unit"].get<std::string>() : "";
    rec.approximate = r.contains("approximate") && r["approximate"].is_boolean() && r["approximate"].get<bool>();
    if (r.contains("batch") && !r["batch"].is_null()) {
      if (!r["batch"].is_number_integer() || r["batch"].get<std::int64_t>() < 1)
        throw Error(where + ": 'batch' must be a positive integer or null, got " + r["batch"].dump());
      rec.batch = r["batch"].get<std::int64_t>();
    }
    if (!r.contains("value")) throw Error(where + ": 'value' is missing");
    json const& v = r["value"];
    auto positive = [&](json const& x) {
      if (!x.is_number() || !(x.get<double>() > 0) || !std::isfinite(x.get<double>()))
        throw Error(where + ": 'value' must be a positive number, got " + x.dump());
      return x.get<double>();
    };
    if (rec.kind == "speedup_range") {
      if (!v.is_array() || v.size() != 2) throw Error(where + ": a speedup_range's 'value' must be [low, high], got " + v.dump());
      rec.low = positive(v[0]);
      rec.high = positive(v[1]);
      if (rec.low > rec.high) throw Error(where + ": speedup_range [" + v[0].dump() + ", " + v[1].dump() + "] has low > high");
    } else if (rec.kind == "latency" || rec.kind == "speedup" || rec.kind == "ordering") {
      rec.value = positive(v);
    } else {
      throw Error(where + ": unknown kind '" + rec.kind + "' (known: latency, speedup, speedup_range, ordering)");
    }
    out.push_back(std::move(rec));
  }
  return out;
}

/// What the simulator runs for one published number: a zoo model at a batch on a device in
/// a configuration of this library.
struct SimKey {
  std::string device;  // DeviceSpec key
  std::string model;
  std::int64_t batch = 0;  // 0: the record states none; the model's benchmark batch
  std::string config;  // sequential, greedy, ios, tensorrt, taso, metaflow
  std::int64_t resolution = 0;  // image side; 0: the model's published one
  std::int64_t schedule_batch = 0;  // ios: searched at this batch and replayed at `batch`; 0: searched at `batch`
  std::string schedule_device;      // ios: searched on this device and replayed on `device`; empty: searched on `device`
  std::string block;                // a block of the model (a top-level scope) run alone; empty: the whole model
  std::int64_t ios_r = 0, ios_s = 0;  // ios: IOS's pruning r and s; 0: IOS's defaults (3, 8)
  auto operator<=>(SimKey const&) const = default;
  std::string text() const {
    std::string for_ = schedule_batch || !schedule_device.empty()
                           ? " (its schedule searched " + (schedule_batch ? "at batch " + std::to_string(schedule_batch) : "") +
                                 (schedule_batch && !schedule_device.empty() ? " " : "") + (schedule_device.empty() ? "" : "on " + schedule_device) + ")"
                           : "";
    std::string pruned = ios_r ? " (r=" + std::to_string(ios_r) + ", s=" + std::to_string(ios_s) + ")" : "";
    return model + (block.empty() ? "" : " block " + block) + (resolution ? " at " + std::to_string(resolution) + " px" : "") + " batch " +
           (batch ? std::to_string(batch) : "default") + " on " + device + ": " + config + pruned + for_;
  }
};

/// A simulated configuration, or why there is none.
struct Mapped {
  std::optional<std::string> config;
  std::string reason;
  std::int64_t schedule_batch = 0;  // ios: the batch its schedule was optimized for; 0: the record's
  std::string schedule_device;      // ios: the device its schedule was optimized for; empty: the record's
  std::int64_t ios_r = 0, ios_s = 0;  // ios: IOS's pruning (kernels per group, groups per stage); 0: its defaults
};

Mapped ran(std::string config) {
  Mapped m;
  m.config = std::move(config);
  return m;
}
Mapped not_run(std::string why) {
  Mapped m;
  m.reason = std::move(why);
  return m;
}

/// IOS with its schedule searched at batch `n` (a number, as text) for a record at `batch`.
Mapped ios_for_batch(std::string const& paper, std::string const& n, std::int64_t batch) {
  std::int64_t for_batch = 0;
  try {
    std::size_t used = 0;
    for_batch = std::stoll(n, &used);
    if (used != n.size()) for_batch = 0;
  } catch (std::exception const&) {
  }
  if (for_batch < 1) return not_run("'" + paper + "': '" + n + "' is not a batch size");
  Mapped m = ran("ios");
  if (for_batch != batch) m.schedule_batch = for_batch;
  return m;
}

/// The library's configuration for a paper's system name (`gpu_key` and `batch` are the
/// record's: a schedule optimized for another batch or device is searched there and replayed
/// here, schedule::Ios::replay).
Mapped map_config(std::string const& paper, std::string const& gpu_key, std::int64_t batch) {
  std::string c = lower(trim(paper));
  if (c == "sequential") return ran("sequential");
  if (c == "greedy") return ran("greedy");
  // TensorRT runs one stream of its own and cuDNN's kernels, with its layer fusions.
  if (c == "tensorrt") return ran("tensorrt");
  if (c == "metaflow") return ran("metaflow");
  if (c == "taso") return ran("taso");
  if (c == "ios" || c == "ios-both") return ran("ios");
  // IOS's other variants (its experiments' dp_parallel and dp_merge): stages of concurrent groups
  // only, or of single operators and merged convolutions only.
  if (c == "ios-parallel") return ran("ios_parallel");
  if (c == "ios-merge") return ran("ios_merge");
  // "IOS (r=1, s=8)": IOS-Both pruned to r operators per group and s groups per stage.
  if (long long r = 0, sg = 0; std::sscanf(c.c_str(), "ios (r=%lld, s=%lld)", &r, &sg) == 2) {
    if (r < 1 || sg < 1) return not_run("'" + paper + "': r and s must be at least 1");
    Mapped m = ran("ios");
    m.ios_r = r;
    m.ios_s = sg;
    return m;
  }
  std::string const optimized = "ios (schedule optimized for ";
  if (c.starts_with(optimized) && c.ends_with(")")) {
    std::string target = c.substr(optimized.size(), c.size() - optimized.size() - 1);
    if (target.starts_with("batch ")) return ios_for_batch(paper, target.substr(6), batch);
    std::string key;
    try {
      key = std::string(device_spec(target).key);
    } catch (Error const&) {
      return not_run("a schedule optimized for " + target + ", which has no device model");
    }
    if (key == gpu_key) return ran("ios");
    Mapped m = ran("ios");
    m.schedule_device = key;
    return m;
  }
  // IOS's Figure 4.7 names them "schedule for bs32" and "schedule for bs1, run at bs1".
  std::string const for_bs = "schedule for bs", run_at = ", run at bs";
  if (c.starts_with(for_bs)) {
    std::string n = c.substr(for_bs.size());
    if (auto at = n.find(run_at); at != std::string::npos) {
      if (n.substr(at + run_at.size()) != std::to_string(batch))
        return not_run("'" + paper + "' runs at another batch than the record's " + std::to_string(batch));
      n = n.substr(0, at);
    }
    return ios_for_batch(paper, n, batch);
  }
  if (c.starts_with("tvm")) return not_run("'" + paper + "': no model of TVM's kernels");
  return not_run("'" + paper + "': no configuration of this library stands for it");
}

/// Whether `source` is the IOS work (Ding et al., MLSys 2021, and Ding's thesis), which measured
/// the networks its own code builds (mit-han-lab/inter-operator-scheduler, python/ios/models/).
bool is_ios_work(std::string const& source) { return lower(source).find("inter-operator scheduler") != std::string::npos; }

/// Whether `source` is the MetaFlow paper (Jia et al., "Optimizing DNN Computation with Relaxed
/// Graph Substitutions", MLSys 2019), which measured the networks its code builds
/// (jiazhihao/metaflow_sysml19, code/: inception.h, squeezenet.h, resnet.h, sru.h; BATCH_SIZE 1).
bool is_metaflow_work(std::string const& source) { return lower(source).find("relaxed graph substitutions") != std::string::npos; }

/// The zoo model a paper's name stands for in `source` ("Inception V3" -> inception_v3), or null.
std::optional<std::string> zoo_model(std::string const& name, std::string const& source) {
  // IOS's SqueezeNet is its squeezenet.py's (squeezenet_ios: a 7x7/96 stem and a bypass in every
  // fire module), whether the record names it as the paper does or as the records file's
  // stand-in squeezenet1_1. MetaFlow's paper says only "SqueezeNet, a 42-layer CNN with fire
  // modules", but its code says which: squeezenet.h's SqueezeNetComplex is the same network
  // (fire_complex: the same modules, bypass convs where the channels change; IOS's squeezenet.py
  // follows it), and sru.h's RNNTC_SRU is rnntc_metaflow (20 steps, no embedding or classifier).
  std::string n = lower(trim(name));
  if ((is_ios_work(source) || is_metaflow_work(source)) && (n == "squeezenet" || n == "squeezenet1_1")) return "squeezenet_ios";
  if (is_metaflow_work(source) && (n == "rnntc" || n == "rnntc_sru")) return "rnntc_metaflow";
  // IOS's Inception-v3 is its inception_v3.py's: E blocks concatenated flat, no classifier.
  if (is_ios_work(source) && (n == "inception_v3" || n == "inception v3" || n == "inception-v3")) return "inception_v3_ios";
  if (models::find_model(name)) return name;
  // The papers' names for zoo models: IOS names its RandWire, NasNet and SqueezeNet without
  // their variants (records that say which carry the zoo's name already).
  static std::map<std::string, std::string> const alias{{"inception v3", "inception_v3"},  {"inception-v3", "inception_v3"},
                                                        {"randwire", "randwire_ws"},       {"nasnet", "nasnet_a_large"},
                                                        {"squeezenet", "squeezenet1_1"},   {"resnet-50", "resnet50"},
                                                        {"resnet34", "resnet34"},          {"resnet-34", "resnet34"},
                                                        {"inception_v3 (last block)", "inception_v3_last_block"}};
  auto it = alias.find(n);
  if (it == alias.end()) return std::nullopt;
  return it->second;
}

/// The image side a paper's code builds `model` at, or 0 for the zoo's default: MetaFlow's
/// ResNet-34 and SqueezeNet take 222 x 222 inputs (resnet.h, squeezenet.h), its Inception-v3 the
/// zoo's 299.
std::int64_t network_resolution(std::string const& model, std::string const& source) {
  if (is_metaflow_work(source) && (model == "resnet34" || model == "squeezenet_ios")) return 222;
  if (is_ios_work(source) && model == "nasnet_a_large") return 331;
  return 0;
}

/// The simulated device key for a record's `gpu` ("Tesla V100" -> v100), or null.
std::optional<std::string> device_key(std::string const& gpu) {
  std::string g = lower(gpu);
  for (std::string prefix : {"tesla ", "nvidia ", "geforce "})
    if (g.starts_with(prefix)) g = g.substr(prefix.size());
  try {
    return std::string(device_spec(g).key);
  } catch (Error const&) {
    return std::nullopt;
  }
}

std::vector<std::string> split_on(std::string const& s, std::string const& sep) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  for (std::size_t next; (next = s.find(sep, at)) != std::string::npos; at = next + sep.size()) parts.push_back(trim(s.substr(at, next - at)));
  parts.push_back(trim(s.substr(at)));
  return parts;
}

/// Simulated latencies, each computed once.
class Simulations {
 public:
  explicit Simulations(double time_limit) : time_limit_(time_limit) {}

  double latency_ms(SimKey const& k) {
    if (auto it = done_.find(k); it != done_.end()) return it->second;
    std::fprintf(stderr, "simulating %s...\n", k.text().c_str());
    double ms = run(device_spec(k.device), k);
    done_[k] = ms;
    return ms;
  }

  /// The blocks of `k`'s model, in order: the top-level scopes of its kernels' names ("Mixed_7c"
  /// of "Mixed_7c/branch1x1/conv"), as the IOS work cuts its models into blocks.
  std::vector<std::string> blocks(SimKey const& k) const {
    Graph<> g = engine_kernels(models::build(k.model, options(k)));
    std::vector<std::string> out;
    KernelDag dag(g);
    for (NodeId id : dag.nodes())
      if (auto b = block_of(g[id].name); std::ranges::find(out, b) == out.end()) out.push_back(b);
    return out;
  }

 private:
  static models::ModelOptions options(SimKey const& k) {
    models::ModelOptions mo;
    if (k.batch > 0) mo.batch = k.batch;
    if (k.resolution > 0) mo.resolution = k.resolution;
    return mo;
  }
  static std::string block_of(std::string const& name) { return name.substr(0, name.find('/')); }

  double run(DeviceSpec const& device, SimKey const& k) const {
    models::ModelOptions mo = options(k);
    Graph<> g = engine_kernels(models::build(k.model, mo));
    if (!k.block.empty()) {
      // The block alone: its kernels, reading what the blocks before it computed as inputs.
      std::vector<NodeId> part;
      KernelDag dag(g);
      for (NodeId id : dag.nodes())
        if (block_of(g[id].name) == k.block) part.push_back(id);
      if (part.empty()) throw Error(k.text() + ": the model has no block '" + k.block + "'");
      g = extract(g, part).graph;
    }
    // Every system these papers measured (TensorRT, MetaFlow's and IOS's engines, TASO, PyTorch)
    // issues its kernels from a host thread: none replays a CUDA graph. IOS's engine launches a
    // convolution's bias and each concatenated input as kernels of their own, and sums a chain
    // of Adds as one term, up to five values in one kernel (launch::IosEngine). The IOS thesis
    // runs its sequential and greedy baselines on IOS's own engine, so all three configurations
    // below run on it and sum as it does; TASO's and MetaFlow's graphs add two values per kernel.
    SimulatedRuntime<devices::AtRunTime, schedule::Nimble, RooflineCost, launch::HostLaunched> rt(device);
    SimulatedRuntime<devices::AtRunTime, schedule::Nimble, RooflineCost, launch::IosEngine> ios_engine(device);
    KernelDag dag(g);
    if (k.config == "sequential") {
      // IOS's engine with one group per stage: one stream, never synchronized.
      std::vector<std::vector<std::vector<NodeId>>> stages;
      for (NodeId id : dag.nodes()) stages.push_back({{id}});
      return ios_engine.measure_stages(g, std::span<std::vector<std::vector<NodeId>> const>(stages));
    }
    if (k.config == "tensorrt") {
      // TensorRT's horizontal layer fusion: layers that read the same tensor and apply the
      // same operation with the same parameters (Inception's 1x1 convolutions) run as one
      // (NVIDIA, "Deploying Deep Neural Networks with NVIDIA TensorRT", 2017). One stream.
      g = rules::apply_greedily(std::move(g), rules::MergeAllSiblingOps{}).graph;
      g = rules::apply_greedily(std::move(g), rules::MergeSiblingOps{}).graph;
      auto sg = schedule::Sequential{}(g, rt);
      return rt.measure(sg.graph, sg.schedule);
    }
    if (k.config == "greedy") {
      // IOS's greedy: every ready operator in one stage, each its own group (on its own stream),
      // run by IOS's engine (a synchronization after every stage of several groups).
      auto stages = ready_stages(g, dag, k.model);
      return ios_engine.measure_stages(g, std::span<std::vector<std::vector<NodeId>> const>(stages));
    }
    if (k.config == "ios" || k.config == "ios_parallel" || k.config == "ios_merge") {
      schedule::IosOptions io;
      if (k.ios_r) io.max_group_kernels = static_cast<std::size_t>(k.ios_r);
      if (k.ios_s) io.max_groups = static_cast<std::size_t>(k.ios_s);
      io.operator_merge = k.config != "ios_parallel";
      io.concurrent = k.config != "ios_merge";
      auto r = [&] {
        if (!k.schedule_batch && k.schedule_device.empty()) return ios_search(device, g, io);
        // A schedule IOS optimized for another batch size or GPU, run here as the thesis runs
        // it (Table 4.2): searched on the model built at that batch and simulated on that
        // device, then its stages (and merges) replayed on this graph, node for node.
        models::ModelOptions at = mo;
        if (k.schedule_batch) at.batch = k.schedule_batch;
        Graph<> searched = engine_kernels(models::build(k.model, at));
        auto planned = ios_search(k.schedule_device.empty() ? device : device_spec(k.schedule_device), searched, io);
        for (auto const& st : planned.plan)
          for (auto const& grp : st.groups)
            for (NodeId id : grp)
              if (g.label(id) != searched.label(id))
                throw Error(k.text() + ": the schedule's " + searched.label(id) + " is " + g.label(id) + " here");
        return schedule::Ios::replay(g, std::span<schedule::IosStage const>(planned.plan));
      }();
      std::vector<std::vector<std::vector<NodeId>>> stages;
      for (auto const& st : r.stages) stages.push_back(st.groups);
      return ios_engine.measure_stages(r.graph, std::span<std::vector<std::vector<NodeId>> const>(stages));
    }
    if (k.config == "taso_seq") {
      // TASO's runtime on the graph as it is: MetaFlow's engine, one operator after another.
      SimulatedRuntime<devices::AtRunTime, schedule::Nimble, RooflineCost, launch::MetaFlowEngine> engine(device);
      auto sg = schedule::Sequential{}(g, engine);
      return engine.measure(sg.graph, sg.schedule);
    }
    // The graph searches need weight data to fold constants.
    fill_random_weights(g, 1);
    BaselineOptions bo;
    bo.configurations = {k.config};
    bo.verify = false;
    bo.time_limit_s = time_limit_;
    // The search ranks graphs as it always does; its graph runs as the paper's system runs it:
    // MetaFlow's engine, which TASO's runtime continues (cost/launch.hpp).
    auto found = run_baselines<rules::Default>(device, g, bo).front().graph;
    SimulatedRuntime<devices::AtRunTime, schedule::Nimble, RooflineCost, launch::MetaFlowEngine> engine(device);
    auto sg = schedule::Sequential{}(found, engine);
    return engine.measure(sg.graph, sg.schedule);
  }

  /// IOS's search as the thesis ran it, on `device`. IOS's DP prices each stage as its profiler
  /// times it, and its engine runs the stages it chose. The profiler times a stage over many
  /// runs and synchronizes between runs only when the stage has several groups
  /// (measure_stage_latency in src/ios/ios_runtime.cu): a one-group stage costs its repeated
  /// pace (measure_repeated), not one run that starts with an idle host.
  static schedule::IosResult<BuiltinOps> ios_search(DeviceSpec const& device, Graph<> const& g, schedule::IosOptions const& options) {
    SimulatedRuntime<devices::AtRunTime, schedule::Nimble, RooflineCost, launch::IosEngine> ios_engine(device);
    return schedule::Ios{options}.run_with(g, schedule::IosPrepare<BuiltinOps>([&ios_engine](Graph<> const& graph) {
      auto p = std::make_shared<decltype(ios_engine.prepare(graph))>(ios_engine.prepare(graph));
      return std::function<double(Schedule const&)>([p](Schedule const& s) { return p->measure_repeated(s); });
    }));
  }

  /// The kernels every measured engine runs: batch norms folded into the convolutions before
  /// them, and a ReLU after a convolution fused into it (cuDNN's
  /// cudnnConvolutionBiasActivationForward; IOS's engine calls it for every conv with an
  /// activation, and its models have no batch norm; TensorRT, TASO and MetaFlow fuse both).
  static Graph<> engine_kernels(Graph<> g) {
    g = rules::apply_greedily(std::move(g), rules::FoldConvBatchNorm{}).graph;
    return rules::apply_greedily(std::move(g), rules::FuseConvRelu{}).graph;
  }

  /// IOS's greedy stages: the kernels whose producers ran in earlier stages, each alone in a group.
  static std::vector<std::vector<std::vector<NodeId>>> ready_stages(Graph<> const& g, KernelDag const& dag, std::string const& model) {
    // One IOS operator per kernel, but for IOS's compound operators (ios.ir.Sequential): a
    // RandWire node is one (rwconv2d: its input terms summed, a ReLU, the depthwise and the
    // pointwise convolution run in sequence; python/ios/models/common.py, relu_sep_conv), the
    // kernels of one `convN/nodeU` scope here.
    auto op_of = [&](std::uint32_t k) -> std::string {
      std::string const& name = g[dag.node(k)].name;
      if (model != "randwire_ws") return std::to_string(k);
      auto first = name.find('/');
      auto second = first == std::string::npos ? first : name.find('/', first + 1);
      if (second == std::string::npos || name.compare(first + 1, 4, "node") != 0) return std::to_string(k);
      return name.substr(0, second);
    };
    // An operator's stage: one after the latest stage of the operators its kernels read. The
    // operators form a DAG; relax until no stage moves (at most one pass per operator).
    std::vector<std::string> op(dag.size());
    for (std::uint32_t k = 0; k < dag.size(); ++k) op[k] = op_of(k);
    std::map<std::string, std::size_t> level_of;
    for (bool moved = true; moved;) {
      moved = false;
      for (std::uint32_t k = 0; k < dag.size(); ++k)  // indices are topological
        for (std::uint32_t p : dag.preds(k))
          if (op[p] != op[k] && level_of[op[k]] < level_of[op[p]] + 1) {
            level_of[op[k]] = level_of[op[p]] + 1;
            moved = true;
          }
    }
    std::map<std::string, std::size_t> group_of;  // operator -> its group in its stage
    std::vector<std::vector<std::vector<NodeId>>> stages;
    for (std::uint32_t k = 0; k < dag.size(); ++k) {
      std::size_t level = level_of[op[k]];
      if (stages.size() <= level) stages.resize(level + 1);
      if (!group_of.contains(op[k])) {
        group_of[op[k]] = stages[level].size();
        stages[level].emplace_back();
      }
      stages[level][group_of[op[k]]].push_back(dag.node(k));
    }
    return stages;
  }

  double time_limit_;
  std::map<SimKey, double> done_;
};

/// One record's outcome.
struct Row {
  Record const* rec = nullptr;
  std::string why_not;                     // non-empty: not run, and why
  std::vector<SimKey> keys;                // latency: one; speedup/ordering: two (A, B)
  std::vector<std::vector<SimKey>> ranged; // speedup_range: (A, B) per model
  std::vector<std::vector<SimKey>> best_of; // speedup of a model's best block: (A, B) per block
  std::string best_block;                   // the block with the largest simulated A / B
  double simulated = 0;                    // latency ms, or speedup
};

struct Figures {
  std::vector<double> abs_log, speedup_log;
  std::size_t orderings = 0, reproduced = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void print_figures(std::string const& name, Figures const& f) {
  auto fig = [](std::vector<double> const& v) {
    if (v.empty()) return std::string("-");
    char buf[96];
    double m = median(v);
    std::snprintf(buf, sizeof buf, "%.3f (x%.2f, n=%zu)", m, std::exp(m), v.size());
    return std::string(buf);
  };
  std::string order = "-";
  if (f.orderings) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f%% (%zu of %zu)", 100.0 * static_cast<double>(f.reproduced) / static_cast<double>(f.orderings),
                  f.reproduced, f.orderings);
    order = buf;
  }
  std::printf("  %-8s  |ln| latency %-24s  |ln| speedup %-24s  orderings %s\n", name.c_str(), fig(f.abs_log).c_str(),
              fig(f.speedup_log).c_str(), order.c_str());
}

int run(Options const& o) {
  auto records = read_records(o.file);
  Simulations sims(o.time_limit);
  std::set<std::tuple<std::string, std::string, std::string>> read_as;  // (source, record's name, zoo model) where they differ

  // Which simulation stands for a (gpu, batch, model, config), or why none does.
  auto key_for = [&](Record const& r, std::string const& model, std::string const& config, std::string& why) -> std::optional<SimKey> {
    auto dev = device_key(r.gpu);
    if (!dev) {
      why = "GPU '" + r.gpu + "' has no device model";
      return std::nullopt;
    }
    auto m = zoo_model(model, r.source);
    if (!m) {
      why = "model '" + model + "' is not in the zoo";
      return std::nullopt;
    }
    std::int64_t side = network_resolution(*m, r.source);
    if (*m != model || side) read_as.insert({r.source, model, *m + (side ? " at " + std::to_string(side) + " px" : "")});
    std::int64_t batch = r.batch.value_or(0);  // 0: not stated, the benchmark's own
    auto c = map_config(config, *dev, batch);
    if (!c.config) {
      why = c.reason;
      return std::nullopt;
    }
    // IOS's experiments run TASO's runtime without TASO's optimization on NASNet and SqueezeNet
    // (experiments/latency/main.py: "there is error when optimize nasnet and squeezenet in TASO,
    // hack it here", opt_type 'taso_seq', ios.taso_utils.graph_latency(optimize=False)): the
    // thesis's "TASO" there is the unoptimized graph on TASO's engine.
    if (*c.config == "taso" && is_ios_work(r.source) && (*m == "nasnet_a_large" || *m == "squeezenet_ios")) c.config = "taso_seq";
    return SimKey{*dev, *m, batch, *c.config, side, c.schedule_batch, c.schedule_device, "", c.ios_r, c.ios_s};
  };

  std::vector<Row> rows;
  for (Record const& r : records) {
    Row row;
    row.rec = &r;
    std::string why;
    if (r.kind == "latency") {
      if (lower(r.unit) != "ms") {
        row.why_not = "unit '" + r.unit + "' (latencies are read in ms)";
      } else if (auto k = key_for(r, r.model, r.config, why)) {
        row.keys = {*k};
      } else {
        row.why_not = why;
      }
    } else if (r.kind == "speedup" || r.kind == "ordering") {
      // "A / B": B is value times faster than A. "A faster than B".
      auto parts = r.kind == "speedup" ? split_on(r.config, " / ") : split_on(r.config, " faster than ");
      if (parts.size() != 2) {
        row.why_not = "config '" + r.config + "' does not name two systems as '" + (r.kind == "speedup" ? "A / B'" : "A faster than B'");
      } else {
        // "M (per block)" with "A / B, best block": the largest A / B over M's blocks, each run
        // alone (the IOS thesis's per-block speedups, Figure 4.8).
        std::string model = r.model;
        std::string const per_block = " (per block)", best = ", best block";
        bool blockwise = r.kind == "speedup" && lower(model).ends_with(per_block) && lower(parts[1]).ends_with(best);
        if (blockwise) {
          model.resize(model.size() - per_block.size());
          parts[1].resize(parts[1].size() - best.size());
        }
        auto a = key_for(r, model, parts[0], why);
        auto b = a ? key_for(r, model, parts[1], why) : std::nullopt;
        if (a && b && *a == *b) why = "'" + parts[0] + "' and '" + parts[1] + "' are the same simulated configuration";
        if (a && b && !(*a == *b) && blockwise) {
          for (std::string const& block : sims.blocks(*a)) {
            row.best_of.push_back({*a, *b});
            row.best_of.back()[0].block = row.best_of.back()[1].block = block;
          }
        } else if (a && b && !(*a == *b)) {
          row.keys = {*a, *b};
        } else {
          row.why_not = why;
        }
      }
    } else {  // speedup_range over models
      auto parts = split_on(r.config, " / ");
      if (parts.size() != 2) {
        row.why_not = "config '" + r.config + "' does not name two systems as 'A / B'";
      } else {
        for (std::string const& model : split_on(r.model, ", ")) {
          auto a = key_for(r, model, parts[0], why);
          auto b = a ? key_for(r, model, parts[1], why) : std::nullopt;
          if (!a || !b) {
            row.ranged.clear();
            row.why_not = why;
            break;
          }
          row.ranged.push_back({*a, *b});
        }
      }
    }
    rows.push_back(std::move(row));
  }

  // Simulate, then score.
  std::map<std::string, Figures> by_source;
  Figures overall;
  auto score_log = [&](std::string const& src, bool speedup, double v) {
    (speedup ? by_source[src].speedup_log : by_source[src].abs_log).push_back(v);
    (speedup ? overall.speedup_log : overall.abs_log).push_back(v);
  };
  auto score_order = [&](std::string const& src, bool ok) {
    for (Figures* f : {&by_source[src], &overall}) {
      ++f->orderings;
      f->reproduced += ok;
    }
  };
  std::vector<std::string> sources;
  for (Record const& r : records)
    if (std::ranges::find(sources, r.source) == sources.end()) sources.push_back(r.source);
  auto source_tag = [&](std::string const& s) { return "S" + std::to_string(std::ranges::find(sources, s) - sources.begin() + 1); };

  std::printf("%-4s %-4s %-10s %-5s %-16s %-40s %-13s %10s %10s %7s\n", "rec", "src", "device", "batch", "model", "config", "kind",
              "published", "simulated", "factor");
  for (Row& row : rows) {
    if (!row.why_not.empty()) continue;
    Record const& r = *row.rec;
    std::string tag = source_tag(r.source);
    char pub[48], sim[48], factor[32] = "";
    if (r.kind == "latency") {
      row.simulated = sims.latency_ms(row.keys[0]);
      std::snprintf(pub, sizeof pub, "%.4f ms", r.value);
      std::snprintf(sim, sizeof sim, "%.4f ms", row.simulated);
      std::snprintf(factor, sizeof factor, "%.2f", row.simulated / r.value);
      score_log(r.source, false, std::abs(std::log(row.simulated / r.value)));
    } else if (r.kind == "speedup" || r.kind == "ordering") {
      if (row.best_of.empty()) {
        row.simulated = sims.latency_ms(row.keys[0]) / sims.latency_ms(row.keys[1]);
      } else {
        row.simulated = 0;
        for (auto const& ab : row.best_of)
          if (double s = sims.latency_ms(ab[0]) / sims.latency_ms(ab[1]); s > row.simulated) {
            row.simulated = s;
            row.best_block = ab[0].block;
          }
      }
      if (r.kind == "speedup") {
        std::snprintf(pub, sizeof pub, "%.2fx", r.value);
        std::snprintf(sim, sizeof sim, "%.2fx", row.simulated);
        std::snprintf(factor, sizeof factor, "%.2f", row.simulated / r.value);
        score_log(r.source, true, std::abs(std::log(row.simulated / r.value)));
        if (r.value != 1) score_order(r.source, (row.simulated > 1) == (r.value > 1) && row.simulated != 1);
      } else {
        // "A faster than B": A's time below B's, i.e. time(A) / time(B) < 1.
        std::snprintf(pub, sizeof pub, "A faster");
        std::snprintf(sim, sizeof sim, "%s", row.simulated < 1 ? "A faster" : "B faster");
        score_order(r.source, row.simulated < 1);
      }
    } else {
      std::string sims_text;
      for (auto const& ab : row.ranged) {
        double s = sims.latency_ms(ab[0]) / sims.latency_ms(ab[1]);
        double off = s < r.low ? std::log(r.low / s) : s > r.high ? std::log(s / r.high) : 0.0;
        score_log(r.source, true, off);
        if (r.low > 1) score_order(r.source, s > 1);
        if (r.high < 1) score_order(r.source, s < 1);
        char b[32];
        std::snprintf(b, sizeof b, "%s%.2f", sims_text.empty() ? "" : ",", s);
        sims_text += b;
      }
      std::snprintf(pub, sizeof pub, "%.2f-%.2fx", r.low, r.high);
      std::snprintf(sim, sizeof sim, "%s", sims_text.c_str());
    }
    std::string batch = r.batch ? std::to_string(*r.batch) : "n/s";
    std::string device = !row.keys.empty() ? row.keys[0].device : !row.ranged.empty() ? row.ranged.front()[0].device : row.best_of.front()[0].device;
    std::printf("%-4zu %-4s %-10s %-5s %-16.16s %-40.40s %-13s %10s %10s %7s%s%s\n", r.index, tag.c_str(), device.c_str(), batch.c_str(),
                r.model.c_str(), r.config.c_str(), r.kind.c_str(), pub, sim, factor, r.approximate ? "  ~" : "",
                row.best_block.empty() ? "" : ("  (best block: " + row.best_block + ")").c_str());
  }

  // Pairs of latency records of one table and model: their ratio is a within-paper speedup
  // and their order an ordering. Pairs the simulator runs as one configuration are not pairs.
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<Row const*>> groups;
  for (Row const& row : rows)
    if (row.why_not.empty() && row.rec->kind == "latency") groups[{row.rec->source, row.rec->table, row.rec->model}].push_back(&row);
  std::size_t pairs = 0;
  for (auto const& [key, members] : groups)
    for (std::size_t i = 0; i < members.size(); ++i)
      for (std::size_t j = i + 1; j < members.size(); ++j) {
        Row const& a = *members[i];
        Row const& b = *members[j];
        if (a.keys[0] == b.keys[0]) continue;
        ++pairs;
        double published = a.rec->value / b.rec->value, simulated = a.simulated / b.simulated;
        score_log(a.rec->source, true, std::abs(std::log(simulated / published)));
        if (published != 1) score_order(a.rec->source, (simulated > 1) == (published > 1) && simulated != 1);
      }

  std::printf("(kernels issued from the host, one by one, as the measured systems do: launch::HostLaunched for tensorrt;\n"
              " sequential, greedy and ios as IOS's engine runs them (launch::IosEngine), taso and metaflow as MetaFlow's\n"
              " (launch::MetaFlowEngine): a convolution's bias and each input of a concatenation a kernel of its own;\n"
              " IOS's engine sums a chain of Adds as one term, up to five values in one kernel)\n");
  std::printf("(~: the record marks device, config or model as a stand-in; factor: simulated / published)\n");
  std::printf("%zu pairs of latency records of one table and model scored as speedups and orderings\n", pairs);
  if (!read_as.empty()) {
    std::printf("model names read as zoo models:");
    for (auto const& [src, name, model] : read_as) std::printf(" %s '%s' -> %s;", source_tag(src).c_str(), name.c_str(), model.c_str());
    std::printf("\n");
  }

  std::size_t skipped = 0;
  for (Row const& row : rows) skipped += !row.why_not.empty();
  if (skipped) {
    std::printf("\nnot run (%zu of %zu records):\n", skipped, rows.size());
    for (Row const& row : rows)
      if (!row.why_not.empty())
        std::printf("  %-4zu %-4s %s, %s: %s\n", row.rec->index, source_tag(row.rec->source).c_str(), row.rec->model.c_str(),
                    row.rec->config.c_str(), row.why_not.c_str());
  }

  std::printf("\nsources:\n");
  for (std::string const& s : sources) std::printf("  %s  %s\n", source_tag(s).c_str(), s.c_str());
  std::printf("\nfigures (median |ln(simulated/published)|, as a factor; orderings reproduced):\n");
  for (std::string const& s : sources) print_figures(source_tag(s), by_source[s]);
  print_figures("overall", overall);
  return 0;
}

autograph::cli::Register reg{{"validate-sim", "Compare the simulator with published GPU latencies (records.json)", [](CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("file", o->file, "records.json (see ../shared/data/published-latencies/README.md)")->required();
  app.add_option("--time-limit", o->time_limit, "seconds per searching configuration (taso, metaflow)")
      ->check(cli::positive_seconds)
      ->capture_default_str();
  return [o] { return run(*o); };
}}};

}  // namespace validate_sim
