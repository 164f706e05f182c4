// `autograph optimize`: the main job. Optimizes a built-in model or an ONNX file with every
// baseline configuration side by side on a simulated device (--runtime sim) or measured on this
// machine's cores (--runtime cpu), verifies each optimized graph against the original on the
// reference executor, and prints one table.
//
//   autograph optimize --model inception_v3 [--device h100] [--runtime sim|cpu] [--report r.json] [--dot g.dot]
//   autograph optimize --model resnet50 --batch 8 --resolution 160
//   autograph optimize model.onnx --input x=1x3x640x640 -o out.onnx --report r.json
//   autograph optimize --model bert --taso ../shared/data/taso/graph_subst.pb --configs taso,autograph
//   autograph optimize --model vit_b_16 --runtime cpu --transformer-fusion [--tuning-log autograph-tuning.jsonl]
//
// --transformer-fusion (CPU runtime): AutoGraph's configuration first fuses the transformer's
// operator groups by AutoGTCO's DP (DPOF) over group costs measured on this CPU, then searches
// from the fused graph (cpu/transformer_fusion.hpp); --tuning-log gives the fused attention
// kernels the configurations `autograph tune` found (cpu/tuned/tuning_source.hpp).
//
//   autograph optimize --model resnet50 --runtime cpu --backends onednn,blas,own [--db costs.json]
//
// With --backends (CPU runtime only), two rows follow the oneDNN-only ones: the input graph
// placed on those backends by Collage's op-level DP ("placement"), and AutoGraph's search on
// the placing runtime, every candidate measured placed ("autograph+placement",
// cpu::PlacingCpuRuntime); the report and the DOT picture then say which backend runs each node.
// Each graph's DP placement is kept only when it measures faster beyond noise than the best
// single backend among those named (PlacingOptions::singles), so neither row is slower than it
// by construction.
#include <autograph/cpu/backends/placed_baselines.hpp>
#include <autograph/cpu/baselines.hpp>
#include <autograph/cpu/tuned/fused_attention_problem.hpp>
#include <autograph/cpu/tuned/tuning_source.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/io/dot.hpp>
#include <autograph/io/onnx/exporter.hpp>
#include <autograph/io/onnx/importer.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/rules/taso_loader.hpp>
#include <autograph/experiments/baselines.hpp>
#include <autograph/tuning/best_logged.hpp>
#include <autograph/tuning/tuning_log.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include "backends_arg.hpp"
#include "command.hpp"
#include "device_arg.hpp"
#include "output_file.hpp"
#include "shape_arg.hpp"

namespace {

using namespace autograph;
using cli::OutputFile;

struct OptimizeOptions {
  std::string model;
  std::string onnx_file;
  std::vector<std::string> inputs;  // name=1x3x224x224
  std::string device = "h100";
  std::string runtime = "sim";
  bool device_given = false;
  OutputFile report{"--report"};
  OutputFile dot{"--dot"};
  OutputFile output{"-o"};          // optimized ONNX file
  std::string taso;                 // TASO rule file
  std::optional<std::string> configs;  // comma-separated; given empty is an error, not "all"
  std::int64_t batch = 0;           // 0: the model's own
  std::int64_t resolution = 0;      // image side of a built-in CNN or ViT; 0: the published one
  double time_limit = 60;
  bool no_verify = false;
  bool rule_report = false;         // per-rule matches, rewrites, applications and time
  std::uint64_t seed = 1;
  bool transformer_fusion = false;  // DPOF before AutoGraph's search (CPU runtime)
  double group_budget_ms = 20;      // per fusion group measurement
  bool group_budget_given = false;
  std::string tuning_log;           // `autograph tune`'s log, for the fused attention kernels
  std::optional<std::string> backends;  // CPU backends to place on (comma-separated)
  std::string db = "autograph-placement-costs.json";  // the placement's cost database
};

// --backends' names are the backends' own (cpu::AllBackends).
static_assert(cpu::backends::OneDnn::name == "onednn" && cpu::backends::Blas::name == "blas" && cpu::backends::OwnKernels::name == "own");

/// How many of `g`'s fused attention nodes find a tuned configuration in `log` for `device`
/// (the CPU runtime runs the best logged one of each; the others run the untuned default).
std::pair<std::size_t, std::size_t> tuned_attention_nodes(Graph<> const& g, tuning::TuningLog const& log, std::string const& device) {
  std::size_t nodes = 0, tuned = 0;
  for (NodeId id : g.node_ids()) {
    auto const* op = g[id].op.template get_if<FusedAttention>();
    if (!op) continue;
    ++nodes;
    std::vector<TensorDesc> in;
    for (Value v : g[id].inputs) in.push_back(g[v.node].outputs[v.port]);
    if (auto [problem, why_not] = cpu::tuned::attention_problem_of(*op, in); problem)
      tuned += tuning::best_logged<cpu::tuned::Attention>(log, device, *problem).has_value();
  }
  return {nodes, tuned};
}

/// "taso,,autograph" -> {taso, autograph}. Names are checked against the known configurations
/// here, before anything is loaded: an empty list ("," or "") would run nothing.
std::vector<std::string> parse_configs(std::string const& text) {
  BaselineOptions const defaults;  // which run every configuration
  auto const& known = defaults.configurations;
  std::string known_list;
  for (auto const& k : known) known_list += (known_list.empty() ? "" : ", ") + k;
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ','))
    if (!part.empty()) {
      if (std::ranges::find(known, part) == known.end())
        throw Error("--configs '" + text + "': unknown configuration '" + part + "' (known: " + known_list + ")");
      out.push_back(part);
    }
  if (out.empty()) throw Error("--configs '" + text + "' names no configuration (known: " + known_list + ")");
  return out;
}

std::string rewrites_text(std::map<std::string, std::size_t> const& r) {
  std::string s;
  for (auto const& [rule, n] : r) s += (s.empty() ? "" : ", ") + rule + " x" + std::to_string(n);
  return s.empty() ? "-" : s;
}

/// Wall time of each phase of the run, in order: printed as one line at the end and written
/// to the report, so that every second the tool takes is accounted for.
struct Phases {
  using Clock = std::chrono::steady_clock;
  Clock::time_point begin = Clock::now();
  std::vector<std::pair<std::string, double>> spent;

  template <class F>
  decltype(auto) time(std::string name, F&& f) {
    auto t0 = Clock::now();
    struct Record {  // also when f throws: the time was spent
      Phases& p;
      std::string name;
      Clock::time_point t0;
      ~Record() { p.spent.emplace_back(std::move(name), std::chrono::duration<double>(Clock::now() - t0).count()); }
    } record{*this, std::move(name), t0};
    return f();
  }
  double total() const { return std::chrono::duration<double>(Clock::now() - begin).count(); }
  std::string line() const {
    std::string s;
    char buf[64];
    for (auto const& [name, sec] : spent) {
      std::snprintf(buf, sizeof buf, "%.2f s", sec);
      s += (s.empty() ? "" : ", ") + name + " " + buf;
    }
    std::snprintf(buf, sizeof buf, "%.2f s", total());
    return "time: " + s + "; total " + buf;
  }
};

/// "x=1x3x224x224, mask=1x128" for the doc string and messages.
std::string input_shapes_text(Graph<> const& g) {
  std::string s;
  for (NodeId id : g.inputs()) {
    auto const& in = *g[id].get_if<Input>();
    std::string dims;
    for (std::size_t i = 0; i < in.desc.shape.rank(); ++i) dims += (i ? "x" : "") + std::to_string(in.desc.shape[i]);
    s += (s.empty() ? "" : ", ") + in.label + "=" + dims;
  }
  return s;
}

int run(OptimizeOptions const& o) {
  // Every argument is checked before the first long step (import, search).
  if (o.runtime != "sim" && o.runtime != "cpu")
    throw Error("--runtime " + o.runtime + ": known runtimes are 'sim' (a simulated GPU) and 'cpu' (measured on this machine); the CUDA runtime runs through benchmark/gpu_bench on a GPU machine");
  if (o.runtime == "cpu" && o.device_given) throw Error("--device names a simulated GPU; --runtime cpu measures this machine");
  if (o.transformer_fusion && o.runtime != "cpu")
    throw Error("--transformer-fusion measures each fusion group on this machine: it needs --runtime cpu");
  if (o.group_budget_given && !o.transformer_fusion)
    throw Error("--group-budget times the fusion groups of --transformer-fusion; without it nothing is fused");
  if (!o.tuning_log.empty() && !o.transformer_fusion)
    throw Error("--tuning-log " + o.tuning_log + ": the tuned kernels are the fused ones; add --transformer-fusion");
  if (!o.tuning_log.empty() && !std::filesystem::is_regular_file(o.tuning_log))
    throw Error("--tuning-log " + o.tuning_log + ": no such file (`autograph tune --model M --log " + o.tuning_log + "` writes one)");
  if (o.model.empty() == o.onnx_file.empty()) throw Error("give exactly one of --model NAME or an ONNX file");
  if (!o.model.empty() && !o.inputs.empty())
    throw Error("--input fixes an ONNX file's input shapes; a built-in model takes --batch and --resolution");
  if (!o.onnx_file.empty() && o.batch > 0) throw Error("--batch applies to a built-in model; fix an ONNX file's batch with --input NAME=DIMS");
  if (!o.onnx_file.empty() && o.resolution > 0)
    throw Error("--resolution applies to a built-in model; fix an ONNX file's image size with --input NAME=DIMS");
  cli::device_arg(o.device);
  std::vector<std::string> backends;
  if (o.backends) {
    if (o.runtime != "cpu") throw Error("--backends places ops on this machine's CPU backends: it needs --runtime cpu");
    backends = cli::backends_arg(*o.backends);
    if (o.transformer_fusion)
      throw Error("--transformer-fusion and --backends cannot be combined: the placing runtime's backends have no fused transformer kernels "
                  "(run them as two optimize runs)");
  }
  BaselineOptions bo;
  if (o.configs) bo.configurations = parse_configs(*o.configs);
  auto input_shapes = cli::parse_input_shapes(o.inputs);
  for (OutputFile const* f : {&o.report, &o.dot, &o.output}) f->check();
  if (o.transformer_fusion && std::ranges::find(bo.configurations, std::string("autograph")) == bo.configurations.end())
    throw Error("--transformer-fusion fuses before AutoGraph's search: --configs must include autograph");
  std::shared_ptr<tuning::TuningLog> tuning_log;
  if (!o.tuning_log.empty()) {
    // Before any measurement: the fusion's group costs are then those of the tuned kernels.
    tuning_log = std::make_shared<tuning::TuningLog>(tuning::TuningLog::open(o.tuning_log));
    cpu::tuned::use_tuning_log(tuning_log, cpu::cpu_model_name());
  }

  Phases phases;
  // The rules first: a bad rule file is found in a second, not after a long import.
  std::vector<rules::TasoRule<BuiltinOps>> taso;
  if (!o.taso.empty()) taso = phases.time("rules", [&] { return rules::load_taso_rules<BuiltinOps>(o.taso); });

  // The graph, with weight data so that rewrites fold constants and results can be verified.
  Graph<> g;
  std::string source;
  std::vector<std::string> output_names;
  std::map<std::string, std::string> dynamic_inputs;
  if (!o.model.empty()) {
    models::ModelOptions mo;
    if (o.batch > 0) mo.batch = o.batch;
    if (o.resolution > 0) mo.resolution = o.resolution;
    g = phases.time("build", [&] { return models::build(o.model, mo); });
    phases.time("weights", [&] { return fill_random_weights(g, o.seed); });
    source = o.model;
  } else {
    std::fprintf(stderr, "importing %s\n", o.onnx_file.c_str());
    auto m = phases.time("import", [&] { return import_onnx(o.onnx_file, {.input_shapes = input_shapes}); });
    g = std::move(m.graph);
    output_names = std::move(m.output_names);
    dynamic_inputs = std::move(m.dynamic_inputs);
    phases.time("weights", [&] { return fill_random_weights(g, o.seed); });  // only weights the file left without data
    source = o.onnx_file;
  }

  bo.verify = !o.no_verify;
  bo.seed = o.seed;
  bo.time_limit_s = o.time_limit;
  bo.progress = [](std::string const& c) { std::fprintf(stderr, "running %s...\n", c.c_str()); };
  bo.verify_progress = [](std::string const& c) { std::fprintf(stderr, "verifying %s on the reference executor...\n", c.c_str()); };
  bo.search_progress = true;

  std::vector<BaselineResult<>> results;
  std::string device_name, runtime_kind;
  double measuring_seconds = -1;  // CPU runtime: seconds spent measuring
  std::optional<cpu::CpuPlan<BuiltinOps>> cpu_plan;  // CPU runtime: AutoGraph's schedule, chosen by measuring
  std::optional<ScheduleChoiceStats> schedule_choice;  // CPU runtime: what choosing AutoGraph's schedules cost
  std::optional<cpu::TransformerFusionResult> fusion_report;  // --transformer-fusion: what DPOF fused
  std::optional<cpu::PlacedBaselineReport> placed_report;  // --backends: the placement's numbers and which backend runs each node
  if (o.runtime == "cpu") {
    cpu::CpuRuntime probe;
    device_name = cpu::cpu_model_name() + ", " + std::to_string(probe.cores()) + " cores";
    runtime_kind = probe.kind();
    // Each latency the searches compare is a median of up to 50 runs, at most ~1 s of runs
    // (a search's first measurements of a model show whether that is 5 runs or 50).
    cpu::CpuBaselineReport report;
    std::optional<cpu::TransformerFusionOptions> fusion;
    if (o.transformer_fusion) fusion = cpu::TransformerFusionOptions{.group_budget_ms = o.group_budget_ms, .weight_seed = o.seed};
    results = cpu::run_baselines(g, bo, {.budget_ms = 1000}, taso, &report, fusion);
    measuring_seconds = report.measuring_seconds;
    cpu_plan = std::move(report.autograph_plan);
    if (cpu_plan) schedule_choice = report.schedule_choice;
    fusion_report = std::move(report.fusion);
    if (o.backends) {
      placed_report.emplace();
      auto progress = [](placement::CostProgress const& p) {
        if (p.done == p.total) {
          if (p.total) std::fprintf(stderr, "\r  measured %zu groups%60s\n", p.total, "");
          return;
        }
        std::fprintf(stderr, "\r  measuring group [%zu/%zu] on %s%20s", p.done + 1, p.total, std::string(p.backend).c_str(), "");
      };
      // Every graph placed is kept only when it measures faster than the best single backend
      // among those allowed (issue 17): each backend alone or with oneDNN for the rest.
      std::vector<cpu::SingleBackend> singles;
      for (auto& single : cpu::single_backends(cpu::AllBackends{}))
        if (std::ranges::all_of(single.backends, [&](std::string const& b) { return std::ranges::find(backends, b) != backends.end(); }))
          singles.push_back(std::move(single));
      // Set member by member: GCC 12 at -O3 reports the designated-initializer form's
      // default-constructed std::function members as "may be used uninitialized" in its
      // destructor (a false -Wmaybe-uninitialized; README command 1 printed it).
      cpu::PlacingOptions placing;
      placing.database = o.db;
      placing.backends = backends;
      placing.progress = progress;
      placing.singles = std::move(singles);
      auto placed = cpu::run_placed_baselines(g, bo, {.budget_ms = 1000}, placing, taso, &*placed_report);
      measuring_seconds += placed_report->measuring_seconds;
      for (auto& r : placed) results.push_back(std::move(r));
    }
  } else {
    DeviceSpec const& device = cli::device_arg(o.device);
    device_name = device.name;
    runtime_kind = "simulated (roofline) — an estimate";
    results = run_baselines<rules::Default>(device, g, bo, taso);
  }
  double verify_seconds = 0;
  for (auto const& r : results) {
    phases.spent.emplace_back(r.name, r.seconds - r.verify_seconds);
    verify_seconds += r.verify_seconds;
  }
  phases.spent.emplace_back("verify", verify_seconds);

  double base = results.front().latency_ms;
  if (o.runtime == "cpu")
    std::printf("%s measured on %s — median wall-clock latency of runs on the CPU runtime (%s)\n", source.c_str(), device_name.c_str(),
                runtime_kind.c_str());
  else
    std::printf("%s on %s — simulated latency (an estimate from the roofline cost model, not a GPU measurement)\n", source.c_str(),
                device_name.c_str());
  int width = 12;  // the config column: "autograph+placement" is longer than the others
  for (auto const& r : results) width = std::max(width, static_cast<int>(r.name.size()));
  std::printf("%-*s %12s %9s %10s %9s %9s  %-10s %s\n", width, "config", "latency ms", "speedup", "search s", "verify s", "ops", "verified",
              "rewrites");
  bool all_ok = true;
  for (auto const& r : results) {
    std::string verified = !r.verification.ran ? "no" : r.verification.passed ? "yes" : "FAILED";
    if (r.verification.ran && !r.verification.passed) all_ok = false;
    if (!r.verification.ran && bo.verify) all_ok = false;
    std::printf("%-*s %12.4f %8.2fx %10.2f %9.2f %9zu  %-10s %s\n", width, r.name.c_str(), r.latency_ms, base / r.latency_ms, r.search_seconds,
                r.verify_seconds, r.operators, verified.c_str(), rewrites_text(r.rewrites).c_str());
  }
  if (cpu_plan) {
    if (cpu_plan->other.empty())
      std::printf("autograph runs with %s's schedule (the other schedule is the same)\n", cpu_plan->scheduled.policy.c_str());
    else
      std::printf("autograph runs with %s's schedule: measured %.4f ms against %.4f ms with %s's (interleaved medians)\n",
                  cpu_plan->scheduled.policy.c_str(), cpu_plan->chosen_ms, cpu_plan->other_ms, cpu_plan->other.c_str());
  }
  std::pair<std::size_t, std::size_t> attention_tuned{0, 0};  // fused attention nodes, of which tuned
  if (fusion_report) {
    auto const& f = *fusion_report;
    auto const& fused = *std::ranges::find(results, std::string("autograph"), &BaselineResult<>::name);  // --configs includes it (checked)
    std::printf("autograph fused the transformer first (DPOF, %zu round%s, group costs measured on this CPU): %s; %zu distinct groups measured in %.2f s, fusion %.2f s in all\n",
                f.rounds, f.rounds == 1 ? "" : "s", rewrites_text(f.applications).c_str(), f.groups_measured, f.measuring_seconds, f.seconds);
    if (tuning_log) {
      attention_tuned = tuned_attention_nodes(fused.graph, *tuning_log, cpu::cpu_model_name());
      std::printf("tuned kernels: %zu of %zu fused attention nodes run the best configuration of %s (%zu records); the others run the default\n",
                  attention_tuned.second, attention_tuned.first, o.tuning_log.c_str(), tuning_log->records().size());
    }
    auto const& v = fused.verification;
    if (v.ran)
      std::printf("autograph's fused graph against the model on the reference executor: normwise error %.2e (limit %.0e)%s\n", v.max_rel_error,
                  std::min(bo.tolerance, cpu::fused_graph_tolerance), v.passed ? "" : " FAILED");
  }
  if (placed_report) {
    auto const& pr = *placed_report;
    std::printf("placement (%s) on %s: %s; autograph+placement: %s\n", o.backends->c_str(), o.db.c_str(),
                cpu::nodes_per_backend(pr.placement_backends).c_str(), cpu::nodes_per_backend(pr.autograph_backends).c_str());
    std::printf("placing %zu graphs took %.3f s (candidates and DP), %zu groups measured (the database knows %zu for this machine)\n",
                pr.graphs_placed, pr.placing_seconds, pr.groups_measured, pr.database_entries);
    auto const& plan = pr.autograph_plan;
    if (plan.other.empty())
      std::printf("autograph+placement runs with %s's schedule (the other schedule is the same)\n", plan.scheduled.policy.c_str());
    else
      std::printf("autograph+placement runs with %s's schedule: measured %.4f ms against %.4f ms with %s's (interleaved medians)\n",
                  plan.scheduled.policy.c_str(), plan.chosen_ms, plan.other_ms, plan.other.c_str());
  }
  for (auto const& r : results)
    if (!r.left_out.empty()) {
      std::string names;
      for (auto const& n : r.left_out) names += (names.empty() ? "" : ", ") + n;
      std::printf("%s left out rules that on their own made the graph slower: %s\n", r.name.c_str(), names.c_str());
    }
  if (o.rule_report)
    for (auto const& r : results)
      if (!r.rule_stats.empty()) std::printf("\nrules of %s:\n%s", r.name.c_str(), format_rule_report(r.rule_stats).c_str());
  for (auto const& r : results)
    if (!r.verification.passed && bo.verify)
      std::fprintf(stderr, "verification of %s failed: %s\n", r.name.c_str(), r.verification.why.c_str());

  auto const& best = results.back();  // autograph when it ran, else the last configuration (never empty: parse_configs)
  if (o.dot.wanted())
    phases.time("write dot", [&] {
      o.dot.write([&](std::ostream& out) {
        if (!placed_report) {
          write_dot(out, best.graph, {.title = source + " (" + best.name + ")"});
          return;
        }
        // The colours of `autograph place --dot`, one per backend.
        std::map<std::string, std::string> colour{{"onednn", "#80b1d3"}, {"blas", "#fdb462"}, {"own", "#b3de69"}};
        auto const& by_node = placed_report->autograph_backends;
        write_dot(out, best.graph,
                  {.fill_color = [&](NodeId id) { return id < by_node.size() && !by_node[id].empty() ? colour[by_node[id]] : std::string(); },
                   .title = source + " (" + best.name + "): oneDNN blue, BLAS orange, own kernels green"});
      });
      std::fprintf(stderr, "wrote %s\n", o.dot.path.c_str());
    });
  if (o.output.wanted() && !all_ok) std::fprintf(stderr, "autograph: error: not writing %s: the optimized graph did not verify\n", o.output.path.c_str());
  if (o.output.wanted() && all_ok)
    phases.time("write onnx", [&] {
      // The exported model is the graph as optimized: its input shapes are the ones it was
      // imported with. Dynamic dimensions of the original are not kept (the search measured,
      // and the rewrites' shape checks held, for these shapes only), and the doc string says so.
      std::string shapes = input_shapes_text(best.graph);
      std::string doc = "optimized by autograph (" + best.name + (o.runtime == "cpu" ? ", measured on " : ", simulated ") + device_name + ") from " + source +
                        "; input shapes are fixed: " + shapes;
      std::string dynamic;
      for (auto const& [name, dims] : dynamic_inputs) dynamic += (dynamic.empty() ? "" : ", ") + name + " " + dims;
      if (!dynamic.empty()) doc += " (the original's dynamic dimensions " + dynamic + " are not kept)";
      ::onnx::ModelProto model = export_onnx_model(best.graph, {.output_names = output_names, .doc = doc});
      o.output.write([&](std::ostream& out) {
        if (!model.SerializeToOstream(&out)) throw Error("cannot serialize the model (over 2 GiB?)");
      });
      std::fprintf(stderr, "wrote %s (%s); its inputs have fixed shapes %s%s\n", o.output.path.c_str(), best.name.c_str(), shapes.c_str(),
                   dynamic.empty() ? "" : (": the original's dynamic dimensions (" + dynamic + ") are not kept").c_str());
    });
  if (o.report.wanted()) {
    nlohmann::json j;
    j["model"] = source;
    j["inputs"] = input_shapes_text(g);
    j["device"] = device_name;
    j["runtime"] = runtime_kind;
    j["configurations"] = nlohmann::json::array();
    for (auto const& r : results) {
      nlohmann::json rule_stats = nlohmann::json::array();
      for (auto const& s : r.rule_stats)
        if (s.matches || s.applications)
          rule_stats.push_back({{"rule", s.name}, {"matches", s.matches}, {"rewrites", s.rewrites}, {"applications", s.applications},
                                {"match_seconds", s.match_seconds}, {"apply_seconds", s.apply_seconds}});
      j["configurations"].push_back({{"name", r.name},
                                     {"latency_ms", r.latency_ms},
                                     {"search_seconds", r.search_seconds},
                                     {"verify_seconds", r.verify_seconds},
                                     {"seconds", r.seconds},
                                     {"nodes", r.operators},
                                     {"rewrites", r.rewrites},
                                     {"stop_reason", r.stop_reason},
                                     {"left_out", r.left_out},
                                     {"verification",
                                      {{"ran", r.verification.ran},
                                       {"passed", r.verification.passed},
                                       {"max_rel_error", r.verification.max_rel_error},
                                       {"detail", r.verification.why}}},
                                     {"rules", rule_stats}});
    }
    // Every phase up to the report itself (its own write takes milliseconds).
    j["phases"] = nlohmann::json::array();
    for (auto const& [name, sec] : phases.spent) j["phases"].push_back({{"name", name}, {"seconds", sec}});
    j["total_seconds"] = phases.total();
    if (measuring_seconds >= 0) j["measuring_seconds"] = measuring_seconds;
    if (fusion_report)
      j["transformer_fusion"] = {{"applications", fusion_report->applications},
                                 {"rounds", fusion_report->rounds},
                                 {"groups_measured", fusion_report->groups_measured},
                                 {"measuring_seconds", fusion_report->measuring_seconds},
                                 {"seconds", fusion_report->seconds},
                                 {"verification_tolerance", std::min(bo.tolerance, cpu::fused_graph_tolerance)},
                                 {"tuning_log", o.tuning_log.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.tuning_log)},
                                 {"attention_nodes", attention_tuned.first},
                                 {"attention_nodes_tuned", attention_tuned.second}};
    if (placed_report) {
      // Which backend runs each operator node of the two placed configurations, by node label.
      auto by_label = [](Graph<> const& h, std::vector<std::string> const& by_node) {
        nlohmann::json m = nlohmann::json::object();
        for (NodeId id : h.node_ids())
          if (id < by_node.size() && !by_node[id].empty()) m[h.label(id)] = by_node[id];
        return m;
      };
      auto const& pr = *placed_report;
      std::size_t n = results.size();
      j["placement"] = {{"backends", backends},
                        {"database", o.db},
                        {"placing_seconds", pr.placing_seconds},
                        {"graphs_placed", pr.graphs_placed},
                        {"groups_measured", pr.groups_measured},
                        {"database_entries", pr.database_entries},
                        {"node_backends", {{results[n - 2].name, by_label(results[n - 2].graph, pr.placement_backends)},
                                           {results[n - 1].name, by_label(results[n - 1].graph, pr.autograph_backends)}}}};
    }
    if (schedule_choice)
      j["schedule_choice"] = {{"raced", schedule_choice->raced},
                              {"settled", schedule_choice->settled},
                              {"inherited", schedule_choice->inherited},
                              {"declined", schedule_choice->declined},
                              {"losing_runs", schedule_choice->losing_runs},
                              {"losing_seconds", schedule_choice->losing_seconds}};
    if (cpu_plan) {
      auto ms = [](double x) { return std::isnan(x) ? nlohmann::json(nullptr) : nlohmann::json(x); };
      j["autograph_schedule"] = {{"chosen", cpu_plan->scheduled.policy}, {"chosen_ms", ms(cpu_plan->chosen_ms)},
                                 {"other", cpu_plan->other.empty() ? nlohmann::json(nullptr) : nlohmann::json(cpu_plan->other)},
                                 {"other_ms", ms(cpu_plan->other_ms)}};
    }
    o.report.write([&](std::ostream& out) { out << j.dump(2) << "\n"; });
    std::fprintf(stderr, "wrote %s\n", o.report.path.c_str());
  }
  std::printf("%s\n", phases.line().c_str());
  if (measuring_seconds >= 0)
    std::printf("measuring on the CPU: %.2f s of the searches' and latencies' time\n", measuring_seconds);
  if (schedule_choice)
    std::printf("choosing autograph's schedules: %zu graphs raced (%zu dropped the slower early, %zu had moved too far from their parent "
                "to take its choice), %zu took their parent's choice untimed; the schedules not chosen ran %zu times, %.2f s of the measuring\n",
                schedule_choice->raced, schedule_choice->settled, schedule_choice->declined, schedule_choice->inherited,
                schedule_choice->losing_runs, schedule_choice->losing_seconds);
  if (!all_ok) {
    std::fprintf(stderr, "autograph: error: an optimized graph failed verification; its result is not valid\n");
    return 1;
  }
  return 0;
}

autograph::cli::Register optimize_cmd{{"optimize", "optimize a model with every baseline side by side (simulated device or measured CPU) and verify the results",
                              [](CLI::App& app) {
                                auto o = std::make_shared<OptimizeOptions>();
                                app.add_option("file", o->onnx_file, "an ONNX model file (instead of --model)")->check(CLI::ExistingFile);
                                app.add_option("--model,-m", o->model, "a built-in model (autograph models lists them)");
                                app.add_option("--input,-i", o->inputs, "fix an ONNX input's shape: name=1x3x224x224 (repeatable)");
                                app.add_option("--device", o->device, std::string("simulated device: ") + cli::device_names)
                                    ->capture_default_str()
                                    ->each([o](std::string const&) { o->device_given = true; });
                                app.add_option("--backends", o->backends,
                                               std::string("with --runtime cpu: also place ops on these CPU backends (") + cli::backend_names +
                                                   ") and run AutoGraph on the placing runtime");
                                app.add_option("--db", o->db, "the placement's cost database (JSON; created when missing)")->capture_default_str();
                                app.add_option("--runtime", o->runtime, "sim (simulated multi-stream GPU) or cpu (measured on this machine's cores)")
                                    ->capture_default_str();
                                cli::add_output_option(app, "--report", o->report, "write a JSON report");
                                cli::add_output_option(app, "--dot", o->dot, "write the optimized graph as Graphviz DOT");
                                cli::add_output_option(app, "-o,--output", o->output, "write the optimized graph as ONNX (input shapes fixed)");
                                app.add_option("--taso", o->taso, "also search with TASO's rule file (graph_subst.pb)");
                                app.add_option_function<std::string>(
                                    "--configs", [o](std::string const& list) { o->configs = list; },
                                    "comma-separated: sequential,nimble,taso,taso+nimble,metaflow,autograph (default all)");
                                app.add_option("--batch", o->batch, "batch size of a built-in model")->check(autograph::cli::positive_integer);
                                app.add_option("--resolution", o->resolution,
                                               "image side of a built-in CNN or ViT (default: the published one; BERT and RNNTC have none)")
                                    ->check(autograph::cli::positive_integer);
                                app.add_option("--time-limit", o->time_limit, "seconds per optimizing configuration")
                                    ->check(cli::positive_seconds)
                                    ->capture_default_str();
                                app.add_option("--seed", o->seed, "seed of the random weights and inputs")->check(autograph::cli::seed_value)->capture_default_str();
                                app.add_flag("--no-verify", o->no_verify, "skip checking optimized graphs on the reference executor");
                                app.add_flag("--transformer-fusion", o->transformer_fusion,
                                             "cpu: before AutoGraph's search, fuse attention, matmul+bias+GELU, add+LayerNorm and "
                                             "conv/matmul + elementwise-chain (residual add, activation, scale) groups by AutoGTCO's DP "
                                             "(DPOF) over each group's latency measured fused and unfused on this CPU");
                                app.add_option("--group-budget", o->group_budget_ms,
                                               "--transformer-fusion: milliseconds of timed runs per group measurement (at least 5 runs)")
                                    ->check(CLI::PositiveNumber)
                                    ->capture_default_str()
                                    ->each([o](std::string const&) { o->group_budget_given = true; });
                                app.add_option("--tuning-log", o->tuning_log,
                                               "--transformer-fusion: run the fused attention kernels in the best configurations of this "
                                               "tuning log (written by `autograph tune --log`)");
                                app.add_flag("--rule-report", o->rule_report, "print each searching configuration's per-rule report (matches, rewrites, applications, time)");
                                return [o] { return run(*o); };
                              }}};

}  // namespace
