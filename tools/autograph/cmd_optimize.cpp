// `autograph optimize`: the main job. Optimizes a built-in model or an ONNX file with every
// baseline configuration side by side on a simulated device, verifies each optimized graph
// against the original on the reference executor, and prints one table.
//
//   autograph optimize --model inception_v3 [--device h100] [--runtime sim] [--report r.json] [--dot g.dot]
//   autograph optimize model.onnx --input x=1x3x640x640 -o out.onnx --report r.json
//   autograph optimize --model bert --taso ../shared/data/taso/graph_subst.pb --configs taso,autograph
#include <autograph/graph/weights.hpp>
#include <autograph/io/dot.hpp>
#include <autograph/io/onnx/exporter.hpp>
#include <autograph/io/onnx/importer.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/rules/taso_loader.hpp>
#include <autograph/search/baselines.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "command.hpp"

namespace {

using namespace autograph;

struct OptimizeOptions {
  std::string model;
  std::string onnx_file;
  std::vector<std::string> inputs;  // name=1x3x224x224
  std::string device = "h100";
  std::string runtime = "sim";
  std::string report;
  std::string dot;
  std::string output;               // optimized ONNX file
  std::string taso;                 // TASO rule file
  std::string configs;              // comma-separated
  std::int64_t batch = 0;
  double time_limit = 60;
  bool no_verify = false;
  std::uint64_t seed = 1;
};

Shape parse_shape(std::string const& text, std::string const& what) {
  std::vector<std::int64_t> dims;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, 'x')) {
    try {
      std::size_t used = 0;
      long long v = std::stoll(part, &used);
      if (used != part.size() || v < 0) throw std::invalid_argument(part);
      dims.push_back(v);
    } catch (std::exception const&) {
      throw Error(what + ": '" + text + "' is not a shape like 1x3x224x224");
    }
  }
  if (dims.empty()) throw Error(what + ": empty shape");
  return Shape(dims);
}

std::vector<std::string> split_list(std::string const& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ','))
    if (!part.empty()) out.push_back(part);
  return out;
}

std::string rewrites_text(std::map<std::string, std::size_t> const& r) {
  std::string s;
  for (auto const& [rule, n] : r) s += (s.empty() ? "" : ", ") + rule + " x" + std::to_string(n);
  return s.empty() ? "-" : s;
}

template <Device D>
std::vector<BaselineResult<>> run_on(Graph<> const& g, BaselineOptions const& bo, std::vector<rules::TasoRule<BuiltinOps>> const& taso) {
  return run_baselines<D, rules::Default>(g, bo, taso);
}

int run(OptimizeOptions const& o) {
  if (o.runtime != "sim")
    throw Error("--runtime " + o.runtime + ": this build measures on the simulated runtime only ('sim'); the CUDA runtime runs through benchmark/gpu_bench on a GPU machine");
  if (o.model.empty() == o.onnx_file.empty()) throw Error("give exactly one of --model NAME or an ONNX file");

  // The graph, with weight data so that rewrites fold constants and results can be verified.
  Graph<> g;
  std::string source;
  std::vector<std::string> output_names;
  if (!o.model.empty()) {
    models::ModelOptions mo;
    if (o.batch > 0) mo.batch = o.batch;
    g = models::build(o.model, mo);
    fill_random_weights(g, o.seed);
    source = o.model;
  } else {
    OnnxImportOptions io;
    for (auto const& spec : o.inputs) {
      auto eq = spec.find('=');
      if (eq == std::string::npos || eq == 0) throw Error("--input " + spec + ": expected name=1x3x224x224");
      io.input_shapes[spec.substr(0, eq)] = parse_shape(spec.substr(eq + 1), "--input " + spec.substr(0, eq));
    }
    std::fprintf(stderr, "importing %s\n", o.onnx_file.c_str());
    auto m = import_onnx(o.onnx_file, io);
    g = std::move(m.graph);
    output_names = m.output_names;
    fill_random_weights(g, o.seed);  // only weights the file left without data
    source = o.onnx_file;
  }

  std::vector<rules::TasoRule<BuiltinOps>> taso;
  if (!o.taso.empty()) taso = rules::load_taso_rules<BuiltinOps>(o.taso);

  BaselineOptions bo;
  if (!o.configs.empty()) bo.configurations = split_list(o.configs);
  bo.verify = !o.no_verify;
  bo.seed = o.seed;
  bo.time_limit_s = o.time_limit;
  bo.progress = [](std::string const& c) { std::fprintf(stderr, "running %s...\n", c.c_str()); };
  bo.search_progress = true;

  std::vector<BaselineResult<>> results;
  std::string device_name;
  if (o.device == "h100") results = run_on<devices::H100>(g, bo, taso), device_name = std::string(devices::H100::spec.name);
  else if (o.device == "h200") results = run_on<devices::H200>(g, bo, taso), device_name = std::string(devices::H200::spec.name);
  else if (o.device == "a100") results = run_on<devices::A100>(g, bo, taso), device_name = std::string(devices::A100::spec.name);
  else if (o.device == "v100") results = run_on<devices::V100>(g, bo, taso), device_name = std::string(devices::V100::spec.name);
  else if (o.device == "2080ti") results = run_on<devices::RTX2080Ti>(g, bo, taso), device_name = std::string(devices::RTX2080Ti::spec.name);
  else throw Error("--device " + o.device + ": known devices are h100, h200, a100, v100, 2080ti");

  double base = results.empty() ? 0 : results.front().latency_ms;
  std::printf("%s on %s — simulated latency (an estimate from the roofline cost model, not a GPU measurement)\n", source.c_str(),
              device_name.c_str());
  std::printf("%-12s %12s %9s %10s %9s  %-10s %s\n", "config", "latency ms", "speedup", "search s", "ops", "verified", "rewrites");
  bool all_ok = true;
  for (auto const& r : results) {
    std::string verified = !r.verification.ran ? "no" : r.verification.passed ? "yes" : "FAILED";
    if (r.verification.ran && !r.verification.passed) all_ok = false;
    if (!r.verification.ran && bo.verify) all_ok = false;
    std::printf("%-12s %12.4f %8.2fx %10.2f %9zu  %-10s %s\n", r.name.c_str(), r.latency_ms, base / r.latency_ms, r.search_seconds,
                r.operators, verified.c_str(), rewrites_text(r.rewrites).c_str());
  }
  for (auto const& r : results)
    if (!r.left_out.empty()) {
      std::string names;
      for (auto const& n : r.left_out) names += (names.empty() ? "" : ", ") + n;
      std::printf("%s left out rules that on their own made the graph slower: %s\n", r.name.c_str(), names.c_str());
    }
  for (auto const& r : results)
    if (!r.verification.passed && bo.verify)
      std::fprintf(stderr, "verification of %s failed: %s\n", r.name.c_str(), r.verification.why.c_str());

  auto const& best = results.back();  // autograph when it ran, else the last configuration
  if (!o.report.empty()) {
    nlohmann::json j;
    j["model"] = source;
    j["device"] = device_name;
    j["runtime"] = "simulated (roofline) — an estimate";
    j["configurations"] = nlohmann::json::array();
    for (auto const& r : results)
      j["configurations"].push_back({{"name", r.name},
                                     {"latency_ms", r.latency_ms},
                                     {"search_seconds", r.search_seconds},
                                     {"nodes", r.operators},
                                     {"rewrites", r.rewrites},
                                     {"stop_reason", r.stop_reason},
                                     {"left_out", r.left_out},
                                     {"verification",
                                      {{"ran", r.verification.ran},
                                       {"passed", r.verification.passed},
                                       {"max_rel_error", r.verification.max_rel_error},
                                       {"detail", r.verification.why}}}});
    std::ofstream(o.report) << j.dump(2) << "\n";
  }
  if (!o.dot.empty()) std::ofstream(o.dot) << to_dot(best.graph, {.title = source + " (" + best.name + ")"});
  if (!o.output.empty()) {
    if (!all_ok) throw Error("not writing " + o.output + ": the optimized graph did not verify");
    export_onnx(best.graph, o.output);
    std::fprintf(stderr, "wrote %s (%s)\n", o.output.c_str(), best.name.c_str());
  }
  if (!all_ok) {
    std::fprintf(stderr, "autograph: error: an optimized graph failed verification; its result is not valid\n");
    return 1;
  }
  return 0;
}

autograph::cli::Register reg{{"optimize", "optimize a model with every baseline side by side (simulated device) and verify the results",
                              [](CLI::App& app) {
                                auto o = std::make_shared<OptimizeOptions>();
                                app.add_option("file", o->onnx_file, "an ONNX model file (instead of --model)");
                                app.add_option("--model,-m", o->model, "a built-in model (autograph models lists them)");
                                app.add_option("--input,-i", o->inputs, "fix an ONNX input's shape: name=1x3x224x224 (repeatable)");
                                app.add_option("--device", o->device, "simulated device: h100, h200, a100, v100, 2080ti")->capture_default_str();
                                app.add_option("--runtime", o->runtime, "sim (simulated multi-stream runtime)")->capture_default_str();
                                app.add_option("--report", o->report, "write a JSON report");
                                app.add_option("--dot", o->dot, "write the optimized graph as Graphviz DOT");
                                app.add_option("-o,--output", o->output, "write the optimized graph as ONNX");
                                app.add_option("--taso", o->taso, "also search with TASO's rule file (graph_subst.pb)");
                                app.add_option("--configs", o->configs,
                                               "comma-separated: sequential,nimble,taso,taso+nimble,metaflow,autograph (default all)");
                                app.add_option("--batch", o->batch, "batch size of a built-in model");
                                app.add_option("--time-limit", o->time_limit, "seconds per optimizing configuration")->capture_default_str();
                                app.add_option("--seed", o->seed, "seed of the random weights and inputs")->capture_default_str();
                                app.add_flag("--no-verify", o->no_verify, "skip checking optimized graphs on the reference executor");
                                return [o] { return run(*o); };
                              }}};

}  // namespace
