// cpu_bench: the CPU benchmark's own systems, measured side by side on this machine's cores.
//
//   cpu_bench [--models inception_v3,bert_encoder_8x1024] [--out cpu.json] [--onnx-dir dir] [--serve]
//
// For each model (batch 1, the zoo's published resolution, random weights from --weight-seed)
// it builds these configurations, each a (graph, schedule) pair measured on the CPU runtime (cpu::CpuRuntime):
//
//   sequential   the model, one stream, every core per kernel
//   nimble       the model, Nimble's streams
//   ios          IOS's stages (schedule::Ios), each stage latency measured on the CPU
//   taso+nimble  TASO's search (measured on the CPU, one stream), then Nimble's streams
//   autograph    AutoGraph's search (measured on the CPU), the measured faster of a stream per core and one stream
//   autograph+dpof  the transformer's operator groups fused first by AutoGTCO's DP (DPOF) on group
//                costs measured here (cpu/transformer_fusion.hpp), then AutoGraph's search; the
//                fused attention kernels run the best configurations of --tuning-log (`autograph
//                tune` writes it), the untuned default without one. Not in the default list:
//                --configs sequential,autograph,autograph+dpof (benchmark/cpu-peers.sh --transformers)
//   autograph+placement  AutoGraph's search on cpu::PlacingCpuRuntime<AllBackends> (issue 17: the
//                code path of `autograph optimize --backends`): every candidate graph is placed on
//                oneDNN, OpenBLAS's im2col path and our own kernels by Collage's op-level DP over
//                group costs from the cost database --placement-db (measured once per machine,
//                then reused), and measured placed; it runs placed, with the schedule its runtime
//                chose by measuring
//
// TASO+Nimble and AutoGraph come from cpu::run_baselines, AutoGraph + placement from
// cpu::run_placed_baselines, whose searches measure on the CPU
// and stop at --search-s. The searches report their own latencies, but those were taken at
// different times under different load; the reported latencies are taken afterwards, side by
// side: every configuration is prepared once (lowered, kernels created, arena planned), then
// --rounds rounds each time every configuration for --runs runs (after --warmup untimed runs;
// fewer, at least 5, once they sum to --round-budget-ms),
// the configuration order rotating from round to round; the median is over all samples.
//
// --onnx-dir writes the model as ONNX (the same weights), its inputs as raw float32
// (<model>.in<i>.bin) and our sequential outputs on them (<model>.out<i>.bin), with a
// manifest <model>.io.json, so the peers (benchmark/cpu-peers.sh) run the same graph on the
// same inputs and can be checked against us.
//
// --serve lets benchmark/cpu-peers.sh interleave these rounds with the peers': after a model
// is prepared it prints {"ready": model}, then each line "round" on stdin runs one round and
// prints its samples as one JSON line; "next" (or the end of input) finishes the model.
#include <autograph/cpu/backends/placed_baselines.hpp>
#include <autograph/cpu/baselines.hpp>
#include <autograph/cpu/runtime.hpp>
#include <autograph/cpu/tuned/tuning_source.hpp>
#include <autograph/graph/stats.hpp>
#include <autograph/io/onnx/exporter.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/rules/taso_loader.hpp>
#include <autograph/schedule/ios.hpp>
#include <autograph/tuning/tuning_log.hpp>

#include <CLI/CLI.hpp>
#include <oneapi/dnnl/dnnl.h>  // dnnl_version(): the oneDNN this program runs with
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace autograph;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Args {
  std::vector<std::string> models{"inception_v3", "nasnet_a_mobile", "randwire_ws", "resnet50", "bert_encoder_8x1024", "squeezenet1_1", "resnext50_32x4d", "vit_b_16"};
  std::string out;
  std::string onnx_dir;
  std::string taso;          // TASO's rule file; empty: the built-in rules only
  std::vector<std::string> configs{"sequential", "nimble", "ios", "taso+nimble", "autograph", "autograph+placement"};
  std::string tuning_log;    // autograph+dpof: the fused attention kernels' tuning log; empty: their defaults
  double group_budget_ms = 20;      // autograph+dpof and autograph+placement: timed runs per group measurement
  std::string placement_db = "autograph-placement-costs.json";  // autograph+placement: the cost database (created when missing)
  int rounds = 7;
  int runs = 30;
  int warmup = 3;
  double round_budget_ms = 0;       // per configuration per round: stop timing after this (at least 5 runs); 0: no limit
  double search_s = 60;      // per searching configuration (TASO, AutoGraph)
  double measure_budget_ms = 1000;  // per measurement inside the searches
  double ios_budget_ms = 20;        // per IOS stage measurement (at least 5 runs)
  std::size_t ios_max_states = 3'000;
  std::size_t ios_max_group_kernels = 3;  // IOS's r, kernels per group
  std::size_t ios_max_groups = 0;   // IOS's s, concurrent groups per stage; 0: the cores (more cannot run at once)
  std::uint64_t weight_seed = 1;
  bool serve = false;
};

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void progress(std::string const& s) {
  std::cerr << "[cpu_bench] " << s << std::endl;
}

/// One configuration, prepared to run: its graph, its schedule and its executable.
struct Prepared {
  std::string name;
  double search_seconds = 0;
  std::size_t operators = 0;
  std::size_t streams = 0;
  std::string note;  // the search's stop reason, IOS's statistics
  double verified_error = -1;  // normwise error against the model on the reference executor; -1: not checked (the model itself)
  double runtime_error = -1;   // normwise error of its outputs on the CPU runtime against the first configuration's; -1: the first
  std::optional<cpu::CpuExecutable> exe;
  std::vector<double> samples;
};

template <class Set>
std::size_t operator_count_of(Graph<Set> const& g) {
  return static_cast<std::size_t>(std::ranges::count_if(g.node_ids(), [&](NodeId id) { return is_operator_node(g, id); }));
}

void write_raw(std::filesystem::path const& path, Tensor const& t) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<char const*>(t.ptr()), static_cast<std::streamsize>(t.numel() * sizeof(float)));
  if (!f) throw Error("cannot write " + path.string());
}

json shape_json(Shape const& s) {
  json j = json::array();
  for (auto d : s.dims()) j.push_back(d);
  return j;
}

class ModelBench {
 public:
  ModelBench(std::string model, Args const& a, std::vector<rules::TasoRule<BuiltinOps>> const& taso) : model_(std::move(model)), a_(a) {
    auto t0 = Clock::now();
    models::ModelOptions mo{.batch = 1, .weight_seed = a.weight_seed};
    graph_ = models::build(model_, mo);
    cpu::CpuRuntimeOptions ro{.warmup = a.warmup, .budget_ms = a.measure_budget_ms, .weight_seed = a.weight_seed};
    cpu::CpuRuntime nimble_rt(ro);
    cpu::SequentialCpuRuntime seq_rt(ro);
    cores_ = nimble_rt.cores();
    for (auto const& in : cpu::lower(graph_)->inputs) inputs_.push_back(Tensor::random(in.desc.shape, hash_combine(a.weight_seed, in.id)));

    if (wants("sequential")) add("sequential", schedule::Sequential{}(graph_, seq_rt), 0, "");
    if (wants("nimble")) add("nimble", schedule::Nimble{}(graph_, nimble_rt), 0, "");
    if (wants("ios")) add_ios();
    std::vector<std::string> searched;
    for (auto const* c : {"taso+nimble", "autograph"})
      if (wants(c)) searched.emplace_back(c);
    if (!searched.empty()) add_searched(searched, ro, nimble_rt, taso, std::nullopt);
    if (wants("autograph+dpof")) add_searched({"autograph"}, ro, nimble_rt, taso, cpu::TransformerFusionOptions{.group_budget_ms = a.group_budget_ms, .weight_seed = a.weight_seed});
    if (wants("autograph+placement")) add_placed(ro, taso);
    prepare_seconds_ = seconds_since(t0);
  }

 private:
  bool wants(std::string const& c) const { return std::ranges::find(a_.configs, c) != a_.configs.end(); }

  void add_ios() {
    auto const& a = a_;
    progress(model_ + ": IOS (stage measurements of at most " + std::to_string(a.ios_budget_ms) + " ms)");
    cpu::CpuRuntime ios_rt(cpu::CpuRuntimeOptions{.warmup = 1, .budget_ms = a.ios_budget_ms, .weight_seed = a.weight_seed});
    schedule::Ios ios{.options = {.max_group_kernels = a.ios_max_group_kernels,
                                  .max_groups = a.ios_max_groups > 0 ? a.ios_max_groups : static_cast<std::size_t>(cores_), .max_block_states = a.ios_max_states}};
    auto r = ios.run(graph_, ios_rt);
    std::string ios_note = "r = " + std::to_string(ios.options.max_group_kernels) + ", s = " + std::to_string(ios.options.max_groups) + ", " +
                           std::to_string(ios.options.max_block_states) + " states per block: " + std::to_string(r.stages.size()) + " stages, " + std::to_string(r.stats.merges) + " merges, " +
                           std::to_string(r.stats.stages_measured) + " stages measured, " + std::to_string(r.stats.blocks) + " blocks";
    progress(model_ + ": IOS took " + std::to_string(r.stats.search_seconds) + " s: " + ios_note);
    add("ios", ScheduledGraph<BuiltinOps>{std::move(r.graph), std::move(r.schedule), "ios", r.stats.search_seconds}, r.stats.search_seconds,
        ios_note);
  }

  /// TASO+Nimble and AutoGraph, or (with `fusion`) AutoGraph after DPOF as "autograph+dpof".
  void add_searched(std::vector<std::string> configs, cpu::CpuRuntimeOptions const& ro, cpu::CpuRuntime& nimble_rt,
                    std::vector<rules::TasoRule<BuiltinOps>> const& taso, std::optional<cpu::TransformerFusionOptions> const& fusion) {
    auto const& a = a_;
    BaselineOptions bo{.configurations = std::move(configs),
                       .time_limit_s = a.search_s,
                       .progress = [&](std::string const& c) { progress(model_ + ": " + c + " (search limit " + std::to_string(a.search_s) + " s)"); },
                       .verify_progress = [&](std::string const& c) { progress(model_ + ": verifying " + c); }};
    cpu::CpuBaselineReport report;
    for (auto& b : cpu::run_baselines(graph_, bo, ro, taso, &report, fusion)) {
      if (b.verification.ran && !b.verification.passed)
        throw Error(model_ + ": " + b.name + "'s graph does not compute what the model computes: " + b.verification.why);
      std::string note = b.stop_reason + "; " + std::to_string(b.rewrites.size()) + " rules applied; search-measured " +
                         std::to_string(b.latency_ms) + " ms";
      if (fusion && report.fusion) {
        std::string fused;
        for (auto const& [rule, n] : report.fusion->applications) fused += (fused.empty() ? "" : ", ") + rule + " x" + std::to_string(n);
        note = "DPOF fused " + (fused.empty() ? std::string("nothing") : fused) + " (" + std::to_string(report.fusion->groups_measured) +
               " distinct groups measured, " + std::to_string(report.fusion->seconds) + " s); " + note +
               (b.verification.ran ? "; normwise error against the unfused model " + std::to_string(b.verification.max_rel_error) : "");
        b.name = "autograph+dpof";
      }
      // AutoGraph runs with the schedule its runtime chose by measuring (a stream per core or one stream).
      bool chosen = (b.name == "autograph" || b.name == "autograph+dpof") && report.autograph_plan;
      if (chosen && !report.autograph_plan->other.empty())
        note += "; " + report.autograph_plan->scheduled.policy + " schedule chosen (" + std::to_string(report.autograph_plan->chosen_ms) + " ms against " +
                std::to_string(report.autograph_plan->other_ms) + " ms with " + report.autograph_plan->other + "'s)";
      if (chosen) {
        auto const& sc = report.schedule_choice;
        note += "; schedules: " + std::to_string(sc.raced) + " graphs raced (" + std::to_string(sc.settled) + " dropped the slower early, " +
                std::to_string(sc.declined) + " too far from their parent), " + std::to_string(sc.inherited) +
                " took their parent's choice; the schedules not chosen ran " + std::to_string(sc.losing_runs) +
                " times, " + std::to_string(sc.losing_seconds) + " s of " + std::to_string(report.measuring_seconds) + " s measuring";
      }
      add(b.name, chosen ? std::move(report.autograph_plan->scheduled) : schedule::Nimble{}(b.graph, nimble_rt), b.search_seconds, note,
          b.verification.ran && !b.rewrites.empty() ? b.verification.max_rel_error : -1);
    }
  }

  /// AutoGraph + placement: the search of `autograph optimize --backends` (run_placed_baselines),
  /// its placed graph prepared with the schedule its runtime chose.
  void add_placed(cpu::CpuRuntimeOptions const& ro, std::vector<rules::TasoRule<BuiltinOps>> const& taso) {
    auto const& a = a_;
    BaselineOptions bo{.time_limit_s = a.search_s,
                       .progress = [&](std::string const& c) { progress(model_ + ": " + c + " (search limit " + std::to_string(a.search_s) + " s)"); },
                       .verify_progress = [&](std::string const& c) { progress(model_ + ": verifying " + c); }};
    std::size_t last_total = 0;
    // Set member by member: GCC 12 at -O3 reports the designated-initializer form's
    // default-constructed std::function members as "may be used uninitialized" (a false
    // -Wmaybe-uninitialized, which CI's warning check would fail on).
    cpu::PlacingOptions po;
    po.database = a.placement_db;
    po.group_budget_ms = a.group_budget_ms;
    po.progress = [&](placement::CostProgress const& p) {
      // One line per batch of groups the database did not know, not one per group.
      if (p.done == p.total && p.total != last_total) {
        last_total = p.total;
        progress(model_ + ": measured " + std::to_string(p.total) + " groups into " + a.placement_db);
      }
    };
    cpu::PlacedBaselineReport report;
    auto results = cpu::run_placed_baselines(graph_, bo, ro, po, taso, &report);
    for (auto const& b : results)
      if (b.verification.ran && !b.verification.passed)
        throw Error(model_ + ": " + b.name + "'s graph does not compute what the model computes: " + b.verification.why);
    auto const& model_placed = results.at(0);  // the model placed, no rewrite: the search's starting point
    auto const& b = results.at(1);
    auto const& plan = report.autograph_plan;
    std::string note = b.stop_reason + "; " + std::to_string(b.rewrites.size()) + " rules applied; search-measured " + std::to_string(b.latency_ms) +
                       " ms (the model placed without rewrites: " + std::to_string(model_placed.latency_ms) + " ms); backends (operator nodes): " +
                       cpu::nodes_per_backend(report.autograph_backends) + " (the model placed: " + cpu::nodes_per_backend(report.placement_backends) + "); placing " +
                       std::to_string(report.graphs_placed) + " graphs took " + std::to_string(report.placing_seconds) + " s, " +
                       std::to_string(report.groups_measured) + " groups measured (the database knows " + std::to_string(report.database_entries) +
                       "); measuring " + std::to_string(report.measuring_seconds) + " s";
    if (!plan.other.empty())
      note += "; " + plan.scheduled.policy + " schedule chosen (" + std::to_string(plan.chosen_ms) + " ms against " + std::to_string(plan.other_ms) +
              " ms with " + plan.other + "'s)";
    add(b.name, plan.scheduled, b.search_seconds, note, b.verification.ran && !b.rewrites.empty() ? b.verification.max_rel_error : -1);
  }

 public:
  /// Runs every configuration once on the CPU runtime and compares its outputs with the first
  /// configuration's, normwise (the reference executor checked each graph; this checks the
  /// kernels that run it, e.g. the tiled fused attention in its tuned configuration).
  /// @throws Error naming the configuration and output beyond `tolerance`.
  void check_runtime_outputs(double tolerance) {
    auto first = configs_.front().exe->run(inputs_);
    for (std::size_t c = 1; c < configs_.size(); ++c) {
      auto got = configs_[c].exe->run(inputs_);
      double worst = 0;
      for (std::size_t i = 0; i < first.size(); ++i) {
        double diff = 0, norm = 0;
        auto a = got[i].data(), b = first[i].data();
        for (std::size_t k = 0; k < b.size(); ++k) diff += (double(a[k]) - b[k]) * (double(a[k]) - b[k]), norm += double(b[k]) * b[k];
        worst = std::max(worst, std::sqrt(diff) / std::max(std::sqrt(norm), 1e-30));
      }
      configs_[c].runtime_error = worst;
      if (!(worst <= tolerance))
        throw Error(model_ + ": " + configs_[c].name + "'s outputs on the CPU runtime differ from " + configs_.front().name + "'s by " + std::to_string(worst) +
                    " (normwise; at most " + std::to_string(tolerance) + ")");
    }
    for (auto& c : configs_) c.exe->write_inputs(inputs_);
  }

  /// Writes the ONNX model, the inputs and our first configuration's outputs (sequential's, when
  /// it runs) for the peers, and the model's parameter count (PyTorch's own modules are checked
  /// against it).
  void export_for_peers(std::filesystem::path const& dir) {
    std::filesystem::create_directories(dir);
    export_onnx(graph_, dir / (model_ + ".onnx"), {.graph_name = model_});
    json io{{"model", model_},
            {"onnx", model_ + ".onnx"},
            {"parameters", trainable_parameters(graph_)},
            {"outputs_from", configs_.front().name},
            {"inputs", json::array()},
            {"outputs", json::array()}};
    auto const& lowered = configs_.front().exe->graph();
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      std::string file = model_ + ".in" + std::to_string(i) + ".bin";
      write_raw(dir / file, inputs_[i]);
      io["inputs"].push_back({{"label", lowered.inputs[i].label}, {"shape", shape_json(inputs_[i].shape())}, {"file", file}});
    }
    auto outputs = configs_.front().exe->run(inputs_);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      std::string file = model_ + ".out" + std::to_string(i) + ".bin";
      write_raw(dir / file, outputs[i]);
      io["outputs"].push_back({{"shape", shape_json(outputs[i].shape())}, {"file", file}});
    }
    for (auto& c : configs_) c.exe->write_inputs(inputs_);  // run() left the outputs' inputs in place; keep every one on the same data
    std::ofstream(dir / (model_ + ".io.json")) << io.dump(2) << "\n";
  }

  /// One round: every configuration `runs` times, starting at a configuration that rotates.
  json round() {
    json samples = json::object();
    std::size_t n = configs_.size();
    for (std::size_t k = 0; k < n; ++k) {
      auto& c = configs_[(k + static_cast<std::size_t>(round_)) % n];
      auto s = c.exe->time(a_.warmup, a_.runs, a_.round_budget_ms);
      c.samples.insert(c.samples.end(), s.begin(), s.end());
      samples[c.name] = s;
    }
    ++round_;
    return {{"model", model_}, {"round", round_}, {"samples", samples}};
  }

  std::set<std::string> const& fallbacks() const { return fallbacks_; }

  json results() const {
    json r = json::array();
    for (auto const& c : configs_)
      r.push_back({{"model", model_},
                   {"reference_kernels", fallbacks_},
                   {"config", c.name},
                   {"median_ms", cpu::median(c.samples)},
                   {"samples", c.samples.size()},
                   {"search_seconds", c.search_seconds},
                   {"operators", c.operators},
                   {"streams", c.streams},
                   {"note", c.note},
                   {"verified_normwise_error", c.verified_error < 0 ? json(nullptr) : json(c.verified_error)},
                   {"runtime_vs_first_normwise_error", c.runtime_error < 0 ? json(nullptr) : json(c.runtime_error)}});
    return r;
  }
  std::string const& model() const { return model_; }
  int rounds_done() const { return round_; }
  double prepare_seconds() const { return prepare_seconds_; }
  int cores() const { return cores_; }

 private:
  template <class Set>
  void add(std::string name, ScheduledGraph<Set> const& sg, double search_seconds, std::string note, double verified_error = -1) {
    Prepared p;
    p.verified_error = verified_error;
    p.name = std::move(name);
    p.search_seconds = search_seconds;
    p.operators = operator_count_of(sg.graph);
    p.streams = sg.schedule.streams.size();
    p.note = std::move(note);
    p.exe.emplace(cpu::lower(sg.graph, cpu::LowerOptions{.random_weights = a_.weight_seed}), sg.schedule, cpu::ExecOptions{.cores = cores_});
    for (auto const& f : p.exe->graph().fallbacks()) fallbacks_.insert(f.substr(0, f.find(' ')));
    // Optimized graphs keep the model's inputs (same shapes, same order): the same data for all.
    p.exe->write_inputs(inputs_);
    configs_.push_back(std::move(p));
  }

  std::string model_;
  Args const& a_;
  Graph<> graph_;
  std::vector<Tensor> inputs_;
  std::vector<Prepared> configs_;
  std::set<std::string> fallbacks_;  // ops that run on their reference kernel (allocating on every run)
  int round_ = 0;
  int cores_ = 0;
  double prepare_seconds_ = 0;
};

int run(Args const& a) {
  std::vector<rules::TasoRule<BuiltinOps>> taso;
  if (!a.taso.empty()) taso = rules::load_taso_rules<BuiltinOps>(a.taso);
  if (!a.tuning_log.empty()) {
    if (!std::filesystem::is_regular_file(a.tuning_log)) throw Error("--tuning-log " + a.tuning_log + ": no such file (`autograph tune --log` writes one)");
    // Before anything is prepared: DPOF's group costs and the timed runs use the tuned kernels.
    cpu::tuned::use_tuning_log(std::make_shared<tuning::TuningLog>(tuning::TuningLog::open(a.tuning_log)), cpu::cpu_model_name());
  }
  json all = json::array();
  json meta;
  for (auto const& m : a.models) {
    ModelBench b(m, a, taso);
    progress(m + ": prepared in " + std::to_string(b.prepare_seconds()) + " s");
    for (auto const& f : b.fallbacks()) progress(m + ": " + f + " runs on its reference kernel");
    b.check_runtime_outputs(1e-4);
    if (!a.onnx_dir.empty()) b.export_for_peers(a.onnx_dir);
    if (a.serve) {
      std::cout << json{{"ready", m}}.dump() << std::endl;
      for (std::string line; std::getline(std::cin, line) && line != "next";) {
        if (line != "round") throw Error("--serve: unknown command '" + line + "' (known: round, next)");
        std::cout << b.round().dump() << std::endl;
      }
    } else {
      for (int r = 0; r < a.rounds; ++r) b.round();
    }
    for (auto& x : b.results()) {
      progress(m + " " + x["config"].get<std::string>() + ": " + std::to_string(x["median_ms"].get<double>()) + " ms");
      x["prepare_seconds"] = b.prepare_seconds();
      all.push_back(x);
    }
    meta = {{"cpu", cpu::cpu_model_name()}, {"cores", b.cores()}};
  }
  if (!a.out.empty()) {
    dnnl_version_t const* v = dnnl_version();
    meta["onednn"] = std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
    meta["compiler"] = std::string("gcc ") + __VERSION__;
    meta["rounds"] = a.rounds;
    meta["runs_per_round"] = a.runs;
    meta["search_s"] = a.search_s;
    meta["ios_budget_ms"] = a.ios_budget_ms;
    meta["taso_rules"] = a.taso.empty() ? "built-in only" : a.taso;
    meta["configs"] = a.configs;
    meta["tuning_log"] = a.tuning_log.empty() ? json(nullptr) : json(a.tuning_log);
    meta["group_budget_ms"] = a.group_budget_ms;
    meta["placement_db"] = a.placement_db;
    auto tmp = a.out + ".tmp";
    std::ofstream(tmp) << json{{"meta", meta}, {"results", all}}.dump(2) << "\n";
    std::filesystem::rename(tmp, a.out);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app{"The CPU benchmark's own configurations (sequential, Nimble, IOS, TASO+Nimble, AutoGraph, AutoGraph + placement), measured side by side"};
  std::string models;
  app.add_option("--models", models, "comma-separated zoo models (default: the eight of the benchmark)");
  app.add_option("--out", a.out, "write the results as JSON here");
  app.add_option("--onnx-dir", a.onnx_dir, "write each model's ONNX, inputs and our outputs here, for the peers");
  app.add_option("--taso", a.taso, "TASO's rule file (graph_subst.pb) for the searches");
  std::string configs;
  app.add_option("--configs", configs, "comma-separated configurations: sequential, nimble, ios, taso+nimble, autograph, autograph+dpof, "
                                       "autograph+placement (default: all but autograph+dpof)");
  app.add_option("--tuning-log", a.tuning_log, "autograph+dpof: the fused attention kernels' tuning log (`autograph tune --log`)");
  app.add_option("--group-budget-ms", a.group_budget_ms, "autograph+dpof, autograph+placement: timed runs per group measurement, ms")->check(CLI::PositiveNumber);
  app.add_option("--placement-db", a.placement_db, "autograph+placement: the placement's cost database (created when missing, reused)");
  app.add_option("--rounds", a.rounds, "interleaved rounds (without --serve)")->check(CLI::PositiveNumber);
  app.add_option("--runs", a.runs, "timed runs per configuration per round")->check(CLI::PositiveNumber);
  app.add_option("--round-budget-ms", a.round_budget_ms, "stop a configuration's timed runs in a round after this many ms (at least 5 runs); 0: no limit")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--warmup", a.warmup, "untimed runs before each configuration's timed runs")->check(CLI::NonNegativeNumber);
  app.add_option("--search-s", a.search_s, "time limit of each search (TASO, AutoGraph), seconds")->check(CLI::PositiveNumber);
  app.add_option("--measure-budget-ms", a.measure_budget_ms, "budget of one measurement inside the searches")->check(CLI::PositiveNumber);
  app.add_option("--ios-budget-ms", a.ios_budget_ms, "budget of one IOS stage measurement")->check(CLI::PositiveNumber);
  app.add_option("--ios-max-states", a.ios_max_states, "IOS: DP states one block may have")->check(CLI::PositiveNumber);
  app.add_option("--ios-max-group-kernels", a.ios_max_group_kernels, "IOS: kernels per group (r)")->check(CLI::PositiveNumber);
  app.add_option("--ios-max-groups", a.ios_max_groups, "IOS: concurrent groups per stage (s); 0: the cores")->check(CLI::NonNegativeNumber);
  app.add_option("--weight-seed", a.weight_seed, "seed of the random weights and inputs");
  app.add_flag("--serve", a.serve, "take rounds from stdin (benchmark/cpu-peers.sh)");
  try {
    app.parse(argc, argv);
  } catch (CLI::ParseError const& e) {
    return app.exit(e);
  }
  try {
    if (!models.empty()) {
      a.models.clear();
      for (std::size_t p = 0; p <= models.size();) {
        auto q = models.find(',', p);
        if (q == std::string::npos) q = models.size();
        if (q > p) a.models.push_back(models.substr(p, q - p));
        p = q + 1;
      }
    }
    for (auto const& m : a.models) (void)models::model_info(m);  // unknown names fail before any work
    if (!configs.empty()) {
      a.configs.clear();
      std::vector<std::string> const known{"sequential", "nimble", "ios", "taso+nimble", "autograph", "autograph+dpof", "autograph+placement"};
      for (std::size_t p = 0; p <= configs.size();) {
        auto q = configs.find(',', p);
        if (q == std::string::npos) q = configs.size();
        if (q > p) {
          auto c = configs.substr(p, q - p);
          if (std::ranges::find(known, c) == known.end())
            throw Error("--configs: unknown configuration '" + c + "' (known: sequential, nimble, ios, taso+nimble, autograph, autograph+dpof, autograph+placement)");
          a.configs.push_back(c);
        }
        p = q + 1;
      }
      if (a.configs.empty()) throw Error("--configs '" + configs + "' names no configuration");
    }
    return run(a);
  } catch (std::exception const& e) {
    std::cerr << "cpu_bench: " << e.what() << "\n";
    return 1;
  }
}
