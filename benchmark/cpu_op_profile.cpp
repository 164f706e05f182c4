// cpu_op_profile: where a model's time goes on this CPU, per operator type, and how much any
// stream schedule could gain over one stream here — the measured reasons behind issue 14's
// targets (AutoGraph 1.3x over our own sequential run; onnxruntime's speed).
//
//   cpu_op_profile [--models inception_v3,nasnet_a_mobile] [--out profile.json] [--onnx-dir dir]
//
// For each model (batch 1, as built), every distinct kernel signature is profiled twice on the
// CPU runtime (cpu/profiler.hpp: the marginal time of one more such kernel in a run, medians
// of the runs, as onnxruntime's per-node times are, a kernel alone): with every core, as one stream gives each kernel, and
// with one core, as concurrent streams on a machine of P cores give each of P branches. Per
// operator type it prints the kernels and both sums; then the model measured on one stream.
//
// The bound. A schedule on P cores runs each kernel k either with every core (t_P(k)) or beside
// others with fewer; with one core it occupies t_1(k) of one core's time, with all of them
// P t_P(k). However kernels are placed, the cores' busy time is at least
// Σ_k min(t_1(k), P t_P(k)), so no schedule runs in less than that over P, and no schedule of
// these kernels beats one stream (Σ_k t_P(k)) by more than
//   bound = Σ_k t_P(k) / (Σ_k min(t_1(k), P t_P(k)) / P).
// Where kernels scale with cores (t_1 ≈ P t_P) the bound is near 1: one stream already keeps
// every core busy, and streams can only share the cores it used. The bound leaves out what a
// model run adds to its kernels (waits, reorders between layouts, cache effects of neighbours);
// the sum of t_P beside the measured one-stream run shows how much that is.
//
// The bound assumes P cores that do not slow each other. P copies of the model on P streams,
// each kernel on one core, measure whether they do: against one copy on one core, the copies
// take P times as long where the cores share everything (an SMT pair, a saturated memory bus)
// and as long where they share nothing. Their time over P is what perfectly independent
// branches of this model's kernels could take on the P cores: the measured bound,
//   measured bound = one stream with every core / (P copies on P streams / P).
//
// --onnx-dir writes each model as ONNX (benchmark/peers/ort_profile.py profiles onnxruntime
// on it per node, the same way) and --out writes everything as JSON for benchmark/op-gap.sh,
// which sets both side by side per operator type.
#include <autograph/cost/inference_kernels.hpp>
#include <autograph/cpu/profiler.hpp>
#include <autograph/cpu/runtime.hpp>
#include <autograph/io/onnx/exporter.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/graph/topological_order.hpp>
#include <autograph/schedule/sequential.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {
using namespace autograph;

/// The operator type of a cost-table signature: "Conv2D{s1,1 ...}(f32[...])" -> "Conv2D".
std::string op_type(std::string const& signature) { return signature.substr(0, signature.find_first_of("{(")); }

/// Independent copies of a graph, and their schedule of one stream each (no waits).
struct Copies {
  Graph<> graph;
  Schedule stream_per_copy;
};

/// `n` independent copies of `g`: the inputs shared, every other node n times, the outputs of all.
Copies copies_of(Graph<> const& g, int n) {
  Copies r;
  Graph<>& h = r.graph;
  std::vector<std::vector<NodeId>> to(n, std::vector<NodeId>(g.id_bound(), no_node));
  std::vector<int> copy;  // by node of h: which copy it belongs to
  for (int c = 0; c < n; ++c)
    for (NodeId id : topological_order(g)) {
      auto const& node = g[id];
      if (c > 0 && node.op.is<Input>()) {
        to[c][id] = to[0][id];
        continue;
      }
      std::vector<Value> in;
      for (Value v : node.inputs) in.push_back({to[c][v.node], v.port});
      NodeId added = to[c][id] = h.add(node.op, std::span<Value const>(in), c ? node.name + " (copy " + std::to_string(c) + ")" : node.name);
      copy.resize(std::max<std::size_t>(copy.size(), added + 1));
      copy[added] = c;
    }
  std::vector<Value> outs;
  for (int c = 0; c < n; ++c)
    for (Value v : g.outputs()) outs.push_back({to[c][v.node], v.port});
  h.set_outputs(std::move(outs));
  r.stream_per_copy.streams.resize(static_cast<std::size_t>(n));
  auto kernel = kernel_mask(h);
  for (NodeId id : topological_order(h))
    if (kernel[id]) r.stream_per_copy.streams[static_cast<std::size_t>(copy[id])].push_back(Launch{id, {}});
  return r;
}

struct TypeSums {
  std::size_t kernels = 0;
  double ms_all = 0, ms_one = 0;
};
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cpu_op_profile: per operator type, each kernel's time with every core and with one, and what streams could gain"};
  std::vector<std::string> model_names{"inception_v3", "nasnet_a_mobile", "randwire_ws", "resnet50", "bert"};
  std::string out, onnx_dir;
  app.add_option("--models", model_names, "zoo models (autograph models)")->delimiter(',');
  app.add_option("--out", out, "write the profile as JSON");
  app.add_option("--onnx-dir", onnx_dir, "write each model as ONNX here (for benchmark/peers/ort_profile.py)");
  CLI11_PARSE(app, argc, argv);
  try {
    for (auto const& m : model_names) models::model_info(m);  // unknown names fail before any work
    cpu::CpuRuntime all;
    cpu::CpuRuntime one({.cores = 1});
    int const p = all.cores();
    nlohmann::json report{{"cpu", all.kind()}, {"cores", p}, {"date", utc_now()}, {"models", nlohmann::json::array()}};
    std::printf("%s; each kernel alone, medians of its runs (cpu/profiler.hpp)\n", all.kind().c_str());
    for (auto const& name : model_names) {
      Graph<> g = models::build(name, {.batch = 1, .weight_seed = 1});  // weights with data: the ONNX carries them
      auto progress = [&](char const* with) {
        return [&name, with](std::size_t done, std::size_t total, std::string const&) {
          std::fprintf(stderr, "\r%s: profiling with %s, %zu of %zu signatures", name.c_str(), with, done + 1, total);
        };
      };
      auto prof_all = cpu::profile(g, all, {.progress = progress("every core")});
      auto prof_one = cpu::profile(g, one, {.progress = progress("one core")});
      std::fprintf(stderr, "\n");
      std::fprintf(stderr, "%s: %d copies on %d streams\n", name.c_str(), p, p);
      Schedule const one_stream = schedule::sequential(KernelDag(g));
      double const one_stream_ms = all.measure(g, one_stream);
      double const one_core_ms = one.measure(g, one_stream);
      auto copies = copies_of(g, p);
      double const copies_ms = all.measure(copies.graph, copies.stream_per_copy);

      std::map<std::string, TypeSums> by_type;
      double sum_all = 0, sum_one = 0, busy = 0;  // busy: Σ min(t_1, P t_P), the bound's core time
      for (std::size_t i = 0; i < prof_all.entries.size(); ++i) {
        auto const& e = prof_all.entries[i];
        double const n = static_cast<double>(e.occurrences), t_all = e.us / 1000, t_one = prof_one.entries[i].us / 1000;
        auto& s = by_type[op_type(e.signature)];
        s.kernels += e.occurrences;
        s.ms_all += n * t_all;
        s.ms_one += n * t_one;
        sum_all += n * t_all;
        sum_one += n * t_one;
        busy += n * std::min(t_one, p * t_all);
      }
      double const bound = busy > 0 ? sum_all / (busy / p) : 1;
      std::printf("\n%s: %zu kernels of %zu signatures\n%-14s %8s %12s %12s %9s %8s\n", name.c_str(), static_cast<std::size_t>(std::ranges::count(kernel_mask(g), 1)),
                  prof_all.entries.size(), "op type", "kernels", "ms, all", "ms, 1 core", "scaling", "share");
      std::vector<std::pair<std::string, TypeSums>> rows(by_type.begin(), by_type.end());
      std::ranges::sort(rows, [](auto const& a, auto const& b) { return a.second.ms_all > b.second.ms_all; });
      nlohmann::json types = nlohmann::json::object();
      for (auto const& [type, s] : rows) {
        std::printf("%-14s %8zu %12.3f %12.3f %8.2fx %7.1f%%\n", type.c_str(), s.kernels, s.ms_all, s.ms_one, s.ms_all > 0 ? s.ms_one / s.ms_all : 0.0,
                    100 * s.ms_all / sum_all);
        types[type] = {{"kernels", s.kernels}, {"ms_all_cores", s.ms_all}, {"ms_one_core", s.ms_one}};
      }
      std::printf("%-14s %8s %12.3f %12.3f %8.2fx\n", "sum", "", sum_all, sum_one, sum_all > 0 ? sum_one / sum_all : 0.0);
      std::printf("one stream, measured as a model: %.3f ms (the kernels' sum is %.0f%% of it)\n", one_stream_ms, 100 * sum_all / one_stream_ms);
      std::printf("the most any schedule of these kernels can gain over one stream on %d cores: %.2fx\n", p, bound);
      std::printf("measured: the model on one core %.3f ms; %d copies on %d streams, a core each, %.3f ms (%dx the work in %.2fx the time)\n",
                  one_core_ms, p, p, copies_ms, p, copies_ms / one_core_ms);
      std::printf("measured bound: perfectly independent branches of these kernels would gain at most %.2fx over one stream with every core\n",
                  one_stream_ms / (copies_ms / p));
      std::fflush(stdout);

      nlohmann::json inputs = nlohmann::json::array();
      for (NodeId id : g.inputs()) {
        std::string shape;
        auto const& s = g.desc(Value{id, 0}).shape;
        for (std::size_t d = 0; d < s.rank(); ++d) shape += (d ? "x" : "") + std::to_string(s[d]);
        inputs.push_back({{"name", g.node(id).name}, {"shape", shape}});
      }
      report["models"].push_back({{"model", name},
                                  {"by_type", types},
                                  {"sum_ms_all_cores", sum_all},
                                  {"sum_ms_one_core", sum_one},
                                  {"one_stream_ms", one_stream_ms},
                                  {"stream_gain_bound", bound},
                                  {"one_core_ms", one_core_ms},
                                  {"copies_on_streams_ms", copies_ms},
                                  {"measured_stream_gain_bound", one_stream_ms / (copies_ms / p)},
                                  {"inputs", inputs}});
      if (!onnx_dir.empty()) {
        std::filesystem::create_directories(onnx_dir);
        export_onnx(g, std::filesystem::path(onnx_dir) / (name + ".onnx"), {.graph_name = name});
      }
    }
    if (!out.empty()) {
      std::string const tmp = out + ".partial";  // a failed write leaves no half-written report
      std::ofstream(tmp) << report.dump(2) << "\n";
      std::filesystem::rename(tmp, out);
    }
  } catch (std::exception const& e) {
    std::fprintf(stderr, "cpu_op_profile: %s\n", e.what());
    return 1;
  }
}
