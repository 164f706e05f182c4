// The GPU benchmark (scripts/gpu-bench.sh runs it): every model of the zoo at batch 1, in one
// run on one GPU, each configuration on the CUDA graph runtime (cuda::CudaGraphRuntime):
//
//   sequential    one stream, kernels in topological order
//   nimble        Nimble's stream assignment (chains of the transitive reduction)
//   ios           IOS's stages, with every stage latency measured on this GPU (and its conv merges)
//   taso+nimble   TASO's search: the whole graph, Σ op cost from the per-op times measured on
//                 this GPU (profile()), no measured verification; then Nimble's streams
//   autograph     AutoGraph: flow partition + DP over partitions, mixed critical path α = 0.25
//                 on the same measured per-op times, top candidates verified on this GPU; Nimble
//
// and, when pytorch_baselines.py's JSON is given, PyTorch eager / CUDA Graphs / torch.compile
// on the same architectures. Every latency is the median over `repeats` runs of the mean of
// 50 back-to-back replays between two CUDA events. Writes <out>.md (a table with device, driver, date) and <out>.json.
//
//   gpu_bench [--out PREFIX] [--models a,b] [--repeats N] [--search-seconds S] [--pytorch FILE]
//             [--no-search] [--no-ios] [--ios-max-states N] [--ios-max-group-kernels R]
//             [--calibrate] [--cost-table FILE] [--profiles FILE] [--label TEXT]
//
// A model named "NAME+fused" is NAME with rules::TransformerFusion applied greedily (the fused
// transformer kernels), so "vit_b_16,vit_b_16+fused" measures them against the unfused ops.
//
// --profiles FILE writes each model's profile (cuda/profiler.hpp: every kernel signature's
// marginal time and how many nodes of the model have it), keyed by model, so a model's kernel
// time can be split by operator type.
//
// IOS measures every stage its DP considers, each a CUDA graph captured and replayed: on
// Inception-v3 with IOS's default bounds that is minutes of GPU time (the first run on an H200
// was cut off after 3 minutes inside it). --ios-max-states and --ios-max-group-kernels bound
// the DP as the CPU benchmark does; the table says which bounds ran. Each configuration's
// line is printed as soon as it is measured, so a run cut short still says where it was.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "autograph/cost/policy.hpp"
#include "autograph/cuda/calibration.hpp"
#include "autograph/cuda/profiler.hpp"
#include "autograph/cuda/runtime.hpp"
#include "autograph/graph/stats.hpp"
#include "autograph/models/zoo.hpp"
#include "autograph/rules/apply_greedily.hpp"
#include "autograph/rules/library/default.hpp"
#include "autograph/rules/transformer_fusion_engine.hpp"
#include "autograph/runtime/simulated_runtime.hpp"
#include "autograph/schedule/ios.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/sequential.hpp"
#include "autograph/search/optimizer.hpp"

namespace {

using namespace autograph;
using json = nlohmann::json;

struct Args {
  std::string out;
  std::vector<std::string> models;
  int repeats = 5;
  double search_seconds = 60;
  std::string pytorch;
  bool search = true, ios = true, calibrate = false;
  std::size_t ios_max_states = schedule::IosOptions{}.max_block_states;
  std::size_t ios_max_group_kernels = schedule::IosOptions{}.max_group_kernels;
  std::string cost_table;
  std::string profiles;
  std::string label;
};

[[noreturn]] void fail(std::string const& why) {
  std::cerr << "gpu_bench: " << why << "\n";
  std::exit(2);
}

/// The options, or CLI11's message and exit code (2 on a bad option, 0 for --help).
Args parse(int argc, char** argv) {
  Args a;
  CLI::App app{"The CUDA graph runtime's configurations (sequential, Nimble, IOS, TASO+Nimble, AutoGraph) measured per model, "
               "beside PyTorch's where given"};
  app.add_option("--out", a.out, "write PREFIX.json and PREFIX.md");
  app.add_option("--models", a.models, "comma-separated zoo models, NAME+fused for a transformer fused by rules::TransformerFusion "
                                       "(default: the zoo less what the sweeps skip)")
      ->delimiter(',');
  app.add_option("--repeats", a.repeats, "timings per configuration (each the mean of 50 replays)")->check(CLI::Range(1, 1000));
  app.add_option("--search-seconds", a.search_seconds, "time limit of each search (TASO, AutoGraph)")->check(CLI::PositiveNumber);
  app.add_option("--pytorch", a.pytorch, "PyTorch's results (benchmark/pytorch_baselines.py --json) to print beside ours")->check(CLI::ExistingFile);
  app.add_flag("!--no-search", a.search, "skip the TASO and AutoGraph searches");
  app.add_flag("!--no-ios", a.ios, "skip IOS");
  app.add_option("--ios-max-states", a.ios_max_states, "IOS: DP states one block may have")->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30));
  app.add_option("--ios-max-group-kernels", a.ios_max_group_kernels, "IOS: kernels per group (r)")->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
  app.add_flag("--calibrate", a.calibrate, "fit the simulator to this GPU's kernels and print its ranking beside the measured one");
  app.add_option("--cost-table", a.cost_table, "write the measured per-signature kernel costs here (MeasuredCost's JSON)");
  app.add_option("--profiles", a.profiles, "write each configuration's per-kernel profile here (JSON)");
  app.add_option("--label", a.label, "a label for the results (the machine, the build)");
  try {
    app.parse(argc, argv);
  } catch (CLI::ParseError const& e) {
    std::exit(app.exit(e));
  }
  std::erase(a.models, std::string{});
  if (a.models.empty())  // the zoo less the entries the sweeps skip (over 100 M weights; DETR's deeper copies): name those with --models
    for (auto const& m : models::zoo())
      if (!m.skip_in_sweeps) a.models.emplace_back(m.name);
  return a;
}

/// One configuration's result: a measured latency, or why there is none.
struct Result {
  std::optional<double> ms;        // median over repeats of the per-run means
  double min_ms = 0, max_ms = 0;   // spread of the per-run means
  std::size_t kernels = 0, streams = 0;
  double search_s = 0;
  std::string note;                // an error, or what the search did
};

/// Times `s` of `g` `repeats` times (each the mean of the runtime's back-to-back replays).
Result time_schedule(cuda::CudaGraphRuntime& gpu, Graph<> const& g, Schedule const& s, int repeats) {
  Result r;
  auto prepared = gpu.prepare(g);
  std::vector<double> means;
  for (int i = 0; i < repeats; ++i) means.push_back(prepared.measure(s));
  r.ms = cuda::median(means);
  r.min_ms = *std::ranges::min_element(means);
  r.max_ms = *std::ranges::max_element(means);
  r.kernels = s.num_kernels();
  r.streams = s.num_streams();
  return r;
}

/// Runs `f`, turning an exception into a result that says what went wrong.
Result guarded(std::string const& what, std::function<Result()> const& f) {
  try {
    return f();
  } catch (std::exception const& e) {
    std::cerr << "[gpu_bench] " << what << " failed: " << e.what() << "\n";
    Result r;
    r.note = std::string("failed: ") + e.what();
    return r;
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

constexpr char const* configs[] = {"sequential", "nimble", "ios", "taso+nimble", "autograph"};
constexpr char const* pytorch_modes[] = {"eager", "cuda_graph", "compile"};

std::string cell(std::optional<double> ms) {
  if (!ms) return "—";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", *ms);
  return buf;
}

/// Spearman of an estimate against the GPU over every candidate the benchmark measured.
template <class Sim>
cuda::Calibration calibrate_with(Sim& sim, std::vector<cuda::Workload<BuiltinOps>> const& cands, std::map<std::string, double> const& measured,
                                 std::string const& name) {
  cuda::Calibration c;
  c.estimator = name;
  for (auto const& cand : cands) {
    c.names.push_back(cand.name);
    c.estimated_ms.push_back(sim.measure(cand.graph, cand.schedule));
    c.measured_ms.push_back(measured.at(cand.name));
  }
  c.spearman = cuda::spearman(c.estimated_ms, c.measured_ms);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  Args args = parse(argc, argv);
  if (auto why = cuda::gpu_unavailable()) {
    std::cerr << "gpu_bench: " << *why << "\n";
    return 1;
  }
  cuda::CudaGraphRuntime gpu;
  cuda::DeviceInfo const& dev = gpu.device().info();
  std::string date = cuda::utc_now();
  if (args.out.empty()) {
    std::string stamp = date;
    std::erase(stamp, ':');
    args.out = "benchmark/results/gpu-" + stamp;
  }
  std::filesystem::create_directories(std::filesystem::path(args.out).parent_path().empty() ? "." : std::filesystem::path(args.out).parent_path());
  std::cerr << "[gpu_bench] " << dev.describe() << "\n";

  json pytorch;
  if (!args.pytorch.empty()) {
    std::ifstream f(args.pytorch);
    if (!f) fail("cannot read " + args.pytorch);
    pytorch = json::parse(f);
  }

  CostTable table;  // every model's measured per-op times, for the searches and calibration
  json profiles = json::object();  // each model's profile, for --profiles
  std::map<std::string, std::map<std::string, Result>> results;
  std::vector<cuda::Workload<BuiltinOps>> candidates;
  std::map<std::string, double> candidate_ms;
  for (auto const& name : args.models) {
    // "vit_b_16+fused": the model with rules::TransformerFusion applied greedily (FusedAttention,
    // MatMul + bias + GELU, AddLayerNorm: the CUDA kernels of issue 18), beside the plain model.
    bool fused = name.ends_with("+fused");
    std::string base = fused ? name.substr(0, name.size() - 6) : name;
    models::ModelInfo const& info = models::model_info(base);
    Graph<> g = info.build({.batch = 1});
    if (fused) g = rules::apply_greedily(g, rules::TransformerFusionEngine{}).graph;
    std::cerr << "[gpu_bench] " << name << ": " << graph_stats(g).operators << " operators\n";
    auto& row = results[name];
    auto keep = [&](std::string const& config, Graph<> const& graph, Schedule const& s, Result r) {
      if (r.ms) std::cerr << "[gpu_bench]   " << config << ": " << *r.ms << " ms" << (r.search_s > 0 ? ", search " + std::to_string(r.search_s) + " s" : "")
                          << (r.note.empty() ? "" : " (" + r.note + ")") << std::endl;
      if (r.ms) {
        std::string id = name + " " + config;
        candidates.push_back({id, graph, s});
        candidate_ms[id] = *r.ms;
      }
      row[config] = std::move(r);
    };

    // The per-op times of this model, measured here: the searches rank candidates with them.
    auto t0 = std::chrono::steady_clock::now();
    try {
      auto profile = cuda::profile(g, gpu);
      for (auto const& e : profile.entries) table.set(profile.device_key, e.signature, {e.us, std::nullopt});
      gpu.set_cost_table(table);
      profiles[name] = json::parse(profile.to_json(-1));
      std::cerr << "[gpu_bench]   profiled " << profile.entries.size() << " signatures in " << seconds_since(t0) << " s\n";
    } catch (std::exception const& e) {
      std::cerr << "[gpu_bench]   profiling failed (searches fall back to the roofline): " << e.what() << "\n";
    }

    KernelDag dag(g);
    Schedule seq = schedule::sequential(dag), nim = schedule::nimble(dag);
    keep("sequential", g, seq, guarded(name + " sequential", [&] { return time_schedule(gpu, g, seq, args.repeats); }));
    keep("nimble", g, nim, guarded(name + " nimble", [&] { return time_schedule(gpu, g, nim, args.repeats); }));
    if (args.ios) {
      std::optional<ScheduledGraph<BuiltinOps>> ios;
      Result r = guarded(name + " ios", [&] {
        auto t = std::chrono::steady_clock::now();
        schedule::Ios ios_search{.options = {.max_group_kernels = args.ios_max_group_kernels, .max_block_states = args.ios_max_states}};
        ios = ios_search(g, gpu);
        Result x = time_schedule(gpu, ios->graph, ios->schedule, args.repeats);
        x.search_s = seconds_since(t);
        return x;
      });
      if (ios) keep("ios", ios->graph, ios->schedule, std::move(r));
      else row["ios"] = std::move(r);
    } else {
      row["ios"].note = "not run (--no-ios)";
    }
    if (args.search) {
      // TASO: the whole graph, Σ measured op cost, the best estimate taken without measuring candidates.
      std::optional<Graph<>> taso_graph;
      Result taso = guarded(name + " taso", [&] {
        Optimizer<Graph<>, rules::Default, SumCost, cuda::CudaGraphRuntime> opt(
            gpu, OptimizerOptions{.partition = false, .measure_rounds = 0, .time_limit_s = args.search_seconds});
        auto out = opt.optimize(g);
        taso_graph = out.graph;
        Result x = time_schedule(gpu, out.graph, schedule::nimble(KernelDag(out.graph)), args.repeats);
        x.search_s = out.search_seconds;
        x.note = out.stop.describe();
        return x;
      });
      if (taso_graph) keep("taso+nimble", *taso_graph, schedule::nimble(KernelDag(*taso_graph)), std::move(taso));
      else row["taso+nimble"] = std::move(taso);

      std::optional<Graph<>> ag_graph;
      Result ag = guarded(name + " autograph", [&] {
        Optimizer<Graph<>, rules::Default, MixedCriticalPath<0.25>, cuda::CudaGraphRuntime> opt(
            gpu, OptimizerOptions{.time_limit_s = args.search_seconds});
        auto out = opt.optimize(g);
        ag_graph = out.graph;
        Result x = time_schedule(gpu, out.graph, schedule::nimble(KernelDag(out.graph)), args.repeats);
        x.search_s = out.search_seconds;
        x.note = out.stop.describe() + ", " + std::to_string(out.measured) + " candidates measured on the GPU";
        return x;
      });
      if (ag_graph) keep("autograph", *ag_graph, schedule::nimble(KernelDag(*ag_graph)), std::move(ag));
      else row["autograph"] = std::move(ag);
    } else {
      row["taso+nimble"].note = row["autograph"].note = "not run (--no-search)";
    }
  }

  // Calibration: do the simulated runtime's estimates rank the measured candidates right?
  std::vector<cuda::Calibration> calibrations;
  if (args.calibrate && candidates.size() >= 2) {
    auto run = [&]<Device D>(D) {
      SimulatedRuntime<D> roofline;
      calibrations.push_back(calibrate_with(roofline, candidates, candidate_ms, roofline.kind()));
      SimulatedRuntime<D, schedule::Nimble, MeasuredCost> measured(MeasuredCost(table, D::spec));
      calibrations.push_back(calibrate_with(measured, candidates, candidate_ms, measured.kind()));
    };
    auto const* spec = cuda::matching_device_spec(dev.name);
    std::string key = spec ? std::string(spec->key) : "h100";
    if (key == "h200") run(devices::H200{});
    else if (key == "a100") run(devices::A100{});
    else if (key == "v100") run(devices::V100{});
    else if (key == "rtx2080ti") run(devices::RTX2080Ti{});
    else run(devices::H100{});
  }

  // ---- the table ----------------------------------------------------------------------------
  json j;
  j["device"] = {{"name", dev.name},
                 {"compute_capability", std::to_string(dev.compute_major) + "." + std::to_string(dev.compute_minor)},
                 {"sm_count", dev.sm_count},
                 {"driver", dev.driver},
                 {"cuda_runtime", dev.cuda_runtime},
                 {"cudnn", dev.cudnn},
                 {"cublas", dev.cublas}};
  j["date"] = date;
  j["label"] = args.label;
  j["batch"] = 1;
  j["repeats"] = args.repeats;
  j["replays"] = gpu.options().replays;
  j["tf32"] = gpu.options().allow_tf32;
  j["search_seconds"] = args.search_seconds;
  j["ios_max_states"] = args.ios_max_states;
  j["ios_max_group_kernels"] = args.ios_max_group_kernels;
  std::ostringstream md;
  md << "# GPU benchmark: " << dev.name << "\n\n"
     << "- device: " << dev.describe() << "\n"
     << "- date: " << date << (args.label.empty() ? "" : ", " + args.label) << "\n"
     << "- batch 1, FP32 data, TF32 " << (gpu.options().allow_tf32 ? "on" : "off") << "; each cell: median of " << args.repeats
     << " runs, each the mean of " << gpu.options().replays << " back-to-back replays of one CUDA graph between two CUDA events, in ms\n"
     << "- searches: " << args.search_seconds << " s each (TASO, AutoGraph); IOS's DP bounded to " << args.ios_max_states
     << " states per block and " << args.ios_max_group_kernels << " kernels per group\n";
  if (!pytorch.is_null())
    md << "- PyTorch " << pytorch.value("torch", std::string("?")) << " (" << pytorch.value("device", std::string("?"))
       << "): eager, CUDA Graphs, torch.compile; same architectures, same batch\n";
  md << "\n| model | sequential | nimble | ios | taso+nimble | autograph |";
  if (!pytorch.is_null()) md << " torch eager | torch CUDA graph | torch.compile |";
  md << "\n|---|---|---|---|---|---|" << (pytorch.is_null() ? "" : "---|---|---|") << "\n";
  std::ostringstream notes;
  for (auto const& name : args.models) {
    auto& row = results[name];
    md << "| " << name;
    for (auto const* c : configs) {
      md << " | " << cell(row[c].ms);
      auto& o = j["models"][name][c];
      if (row[c].ms) {
        o["ms"] = *row[c].ms;
        o["min_ms"] = row[c].min_ms;
        o["max_ms"] = row[c].max_ms;
        o["kernels"] = row[c].kernels;
        o["streams"] = row[c].streams;
      }
      if (row[c].search_s > 0) o["search_seconds"] = row[c].search_s;
      if (!row[c].note.empty()) {
        o["note"] = row[c].note;
        notes << "- " << name << " " << c << ": " << row[c].note << "\n";
      }
    }
    if (!pytorch.is_null()) {
      auto const& p = pytorch["results"].value(name, json::object());
      for (auto const* m : pytorch_modes) {
        std::optional<double> ms;
        if (p.contains(m) && p[m].is_number()) ms = p[m].get<double>();
        md << " | " << cell(ms);
        if (ms) j["models"][name]["pytorch " + std::string(m)] = *ms;
      }
      if (p.contains("skipped")) notes << "- " << name << " PyTorch: " << p["skipped"].get<std::string>() << "\n";
    }
    md << " |\n";
  }
  if (!calibrations.empty()) {
    md << "\n## Calibration\n\nSpearman rank correlation between estimated and measured latency over " << candidates.size()
       << " measured (graph, schedule) candidates:\n\n";
    for (auto const& c : calibrations) {
      md << "- " << c.estimator << ": " << c.spearman << "\n";
      j["calibration"].push_back({{"estimator", c.estimator}, {"spearman", c.spearman}, {"candidates", c.names},
                                  {"estimated_ms", c.estimated_ms}, {"measured_ms", c.measured_ms}});
    }
  }
  if (!notes.str().empty()) md << "\n## Notes\n\n" << notes.str();
  if (!pytorch.is_null()) j["pytorch"] = pytorch;

  std::ofstream(args.out + ".md") << md.str();
  std::ofstream(args.out + ".json") << j.dump(2) << "\n";
  if (!args.cost_table.empty()) {
    cuda::ProfileResult all;
    all.device = dev;
    all.device_key = cuda::cost_device_key(dev.name);
    all.date = date;
    all.warmup = gpu.options().warmup;
    all.replays = gpu.options().replays;
    all.copies = cuda::ProfileOptions{}.copies;
    all.tf32 = gpu.options().allow_tf32;
    json t = json::parse(table.dump());
    for (auto const& [sig, us] : t["devices"].value(all.device_key, json::object()).items()) all.entries.push_back({sig, us.get<double>(), 0});
    all.save(args.cost_table);
  }
  if (!args.profiles.empty()) std::ofstream(args.profiles) << profiles.dump(1) << "\n";
  std::cout << md.str();
  std::cerr << "[gpu_bench] wrote " << args.out << ".md and " << args.out << ".json\n";
  return 0;
}
