// The GPU placement benchmark (issue 17's GPU side): per model at batch 1 on the CUDA graph
// runtime, every line measured on the GPU and printed as soon as it is:
//
//   default lowering     the runtime as it was: cuDNN convolutions, cuBLASLt products, our kernels for the rest
//   <backend> alone      cuda::single_backends(): one backend wherever it has a candidate, the
//                        others one kernel per op for the rest (cuDNN; cuBLASLt with its
//                        pointwise-convolution GEMMs; our kernels with depthwise and chains)
//   op-level placement   Collage's DP (Eq. 3) over every backend, groups priced by their marginal
//                        launch time measured on this GPU (cost database: a second run measures nothing it knows)
//   guarded              the best single backend unless the op-level placement measures faster beyond noise
//   graph-level          Collage's evolutionary search from the op-level placement, individuals
//                        measured whole, offloading groups to cuDNN, within --graph-budget seconds;
//                        kept only when faster than the guarded placement beyond noise
//
//   AutoGraph + placement  with --autograph S: AutoGraph's search (S seconds, MixedCriticalPath<0.25>)
//                        on cuda::PlacingCudaRuntime, where every graph it measures is placed by the
//                        DP first (cuda/backends/placing_runtime.hpp); its result challenges the
//                        guarded placement (interleaved timings, faster beyond noise or not).
//
// with search times, groups measured, and which backend won where (depthwise and pointwise
// convolutions, elementwise chains).
// Latencies: the median of --repeats timings, each the mean of the runtime's 50 back-to-back
// replays under Nimble's streams.
//
//   gpu_place [--models a,b] [--resolution N] [--db FILE] [--graph-budget S] [--rounds N]
//             [--repeats N] [--copies N] [--fp32] [--autograph S] [--model-budget S]
//
// --model-budget S (default 60): a model that has taken S seconds when its graph-level search
// or AutoGraph would start skips them, and says so, so that four models fit a few minutes of GPU.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include "autograph/cost/policy.hpp"
#include "autograph/cuda/backends/measure.hpp"
#include "autograph/cuda/backends/placing_runtime.hpp"
#include "autograph/models/zoo.hpp"
#include "autograph/rules/library/default.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/search/optimizer.hpp"

namespace {

using namespace autograph;
using Clock = std::chrono::steady_clock;

struct Args {
  std::vector<std::string> models{"nasnet_a_mobile", "inception_v3", "resnet50", "squeezenet1_1"};
  int resolution = 0;  // 0: each model's own
  std::string db = "benchmark/results/gpu-placement-costs.json";
  double graph_budget = 8;
  int rounds = 5, repeats = 5, copies = 5;
  bool tf32 = true;
  double autograph = 0;  // seconds of AutoGraph's search before placing its graph; 0: not run
  double model_budget = 60;  // a model past this many seconds skips its remaining searches (graph-level, AutoGraph)
};

/// The options, or CLI11's message and exit code (2 on a bad option or model name, 0 for --help);
/// every model name is checked before the GPU is touched.
Args parse(int argc, char** argv) {
  Args a;
  CLI::App app{"Backend placement on the CUDA graph runtime (issue 17's GPU side): each single backend, the op-level DP, "
               "the graph-level search and AutoGraph + placement, measured per model"};
  app.add_option("--models", a.models, "comma-separated zoo models")->delimiter(',');
  app.add_option("--resolution", a.resolution, "input resolution (0: each model's own)")->check(CLI::Range(0, 4096));
  app.add_option("--db", a.db, "the placement's cost database (created when missing, reused)");
  app.add_option("--graph-budget", a.graph_budget, "seconds of the graph-level search")->check(CLI::NonNegativeNumber);
  app.add_option("--rounds", a.rounds, "interleaved rounds of the final timing")->check(CLI::Range(2, 1000));
  app.add_option("--repeats", a.repeats, "timings per placement (each the mean of 50 replays)")->check(CLI::Range(1, 1000));
  app.add_option("--copies", a.copies, "copies of a group timed back to back when its cost is measured")->check(CLI::Range(2, 1000));
  app.add_flag("!--fp32", a.tf32, "FP32 products (default: TF32 where the backend offers it)");
  app.add_option("--autograph", a.autograph, "seconds of AutoGraph's search before placing its graph (0: not run)")->check(CLI::NonNegativeNumber);
  app.add_option("--model-budget", a.model_budget, "a model past this many seconds skips its remaining searches")->check(CLI::PositiveNumber);
  bool place = true;  // accepted for the command the issue names (gpu_bench --place); placing is what this program does
  app.add_flag("--place", place, "accepted (placing is what gpu_place does)");
  try {
    app.parse(argc, argv);
  } catch (CLI::ParseError const& e) {
    std::exit(app.exit(e));
  }
  std::erase(a.models, std::string{});
  auto fail = [](std::string const& why) {
    std::cerr << "gpu_place: " << why << "\n";
    std::exit(2);
  };
  if (a.models.empty()) fail("--models names no model");
  for (auto const& m : a.models) {
    try {
      (void)models::model_info(m);
    } catch (Error const& e) {
      fail(e.what());
    }
  }
  return a;
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

template <class Set>
double median_ms(cuda::CudaGraphRuntime& gpu, Graph<Set> const& g, int repeats) {
  auto prepared = gpu.prepare(g);
  Schedule s = schedule::nimble(KernelDag(g));
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) t.push_back(prepared.measure(s));
  std::ranges::sort(t);
  return t[t.size() / 2];
}

/// Which backend runs the convolutions the backends compete for, and the chains.
std::string where(cuda::PlacedGraph const& p, Graph<BuiltinOps> const& g) {
  std::map<std::string, int> depthwise, pointwise;
  int chains = 0, chain_ops = 0;
  for (auto const& pg : p.placement.groups) {
    auto const& b = p.placement.backend_of(pg);
    if (pg.pattern == "elementwise-chain" && pg.group.size() > 1) ++chains, chain_ops += static_cast<int>(pg.group.size());
    for (NodeId n : pg.group.nodes) {
      if (cuda::backends::detail::depthwise_conv(g, n)) ++depthwise[b];
      if (cuda::backends::CublasLt::pointwise_conv(g, n)) ++pointwise[b];
    }
  }
  auto text = [](std::map<std::string, int> const& m) {
    std::string s;
    for (auto const& [b, n] : m) s += (s.empty() ? "" : " ") + b + ":" + std::to_string(n);
    return s.empty() ? std::string("-") : s;
  };
  return "depthwise " + text(depthwise) + "; pointwise " + text(pointwise) + "; chains " + std::to_string(chains) + " (" + std::to_string(chain_ops) + " ops)";
}

void line(std::string const& model, std::string const& what, double ms, double baseline_ms, std::string const& rest) {
  std::printf("%-16s %-44s %9.4f ms  x%.3f vs default  %s\n", model.c_str(), what.c_str(), ms, baseline_ms / ms, rest.c_str());
  std::fflush(stdout);
}

void run_model(Args const& a, std::string const& name, cuda::CudaGraphRuntime& gpu, placement::CostDatabase& db) {
  auto const& info = models::model_info(name);
  models::ModelOptions o{.batch = 1, .weight_seed = 7};
  if (a.resolution > 0) o.resolution = a.resolution;
  Graph<> g = info.build(o);
  auto t_model = Clock::now();
  double base = median_ms(gpu, g, a.repeats);
  line(name, "default lowering (no placement)", base, base, "");

  std::size_t measured_before = db.size();
  auto progress = [&, last = Clock::now()](placement::CostProgress const& p) mutable {
    if (p.done == p.total || seconds_since(last) > 5) {
      std::printf("%-16s   measuring groups: %zu/%zu\n", name.c_str(), p.done, p.total);
      std::fflush(stdout);
      last = Clock::now();
    }
  };
  auto pricing = cuda::measured_pricing(gpu, db, a.copies, progress);
  auto singles = cuda::single_backends(cuda::AllBackends{});
  cuda::GuardedPlacement guarded;
  // The single backends and the DP's placement, each measured as it is placed.
  for (auto const& s : singles) {
    auto t = Clock::now();
    guarded.contenders.push_back(cuda::place(cuda::AllBackends{}, g, pricing, {.alone = s.alone}));
    auto& p = guarded.contenders.back();
    p.label = s.label;
    double place_s = seconds_since(t);
    line(name, s.label, median_ms(gpu, p.graph, a.repeats), base,
         "[" + cuda::nodes_per_backend(p) + "] placed in " + std::to_string(place_s) + " s (" + std::to_string(p.costs.measured) + " groups measured)");
  }
  {
    auto t = Clock::now();
    guarded.contenders.push_back(cuda::place(cuda::AllBackends{}, g, pricing));
    auto& p = guarded.contenders.back();
    double place_s = seconds_since(t);
    char search[160];
    std::snprintf(search, sizeof search, "DP %.3f s, generator %.3f s, %zu candidates", p.dp_seconds, p.generate_seconds, p.candidate_groups.size());
    line(name, "op-level placement", median_ms(gpu, p.graph, a.repeats), base,
         "[" + cuda::nodes_per_backend(p) + "] " + search + "; placed in " + std::to_string(place_s) + " s (" + std::to_string(p.costs.measured) +
             " groups measured); " + where(p, g));
  }
  // The choice: single backends in order, then the DP's placement, each challenging the holder.
  std::vector<std::pair<std::string, cuda::PlacedGraph const*>> contenders;
  for (auto const& c : guarded.contenders) contenders.emplace_back(c.label, &c);
  auto t_choice = Clock::now();
  auto choice = placement::choose_measured<cuda::PlacedGraph>(
      contenders, [&](cuda::PlacedGraph const& x, cuda::PlacedGraph const& y) { return cuda::compare(gpu, x.graph, y.graph, a.rounds); },
      [](cuda::PlacedGraph const& x, cuda::PlacedGraph const& y) { return placement::same_placement(x.placement, y.placement); });
  for (auto const& d : choice.decisions) std::printf("%-16s   choice: %s\n", name.c_str(), d.describe().c_str());
  guarded.kept = guarded.contenders[choice.kept];
  line(name, "guarded: kept " + guarded.kept.label, median_ms(gpu, guarded.kept.graph, a.repeats), base,
       "choice " + std::to_string(seconds_since(t_choice)) + " s; " + where(guarded.kept, g));

  auto over_budget = [&](char const* what) {
    if (seconds_since(t_model) < a.model_budget) return false;
    std::printf("%-16s   %s skipped: the model has taken %.1f s (--model-budget %.0f)\n", name.c_str(), what, seconds_since(t_model), a.model_budget);
    std::fflush(stdout);
    return true;
  };
  if (a.graph_budget > 0 && !over_budget("graph-level placement")) {
    auto t = Clock::now();
    auto gl = cuda::place_graph_level(cuda::AllBackends{}, g, guarded.contenders.back(), {&guarded.kept}, gpu,
                                      {.budget_seconds = a.graph_budget, .rounds = a.rounds});
    double s = seconds_since(t);
    char rest[200];
    std::snprintf(rest, sizeof rest, "kept %s; %zu digits, %zu placements measured in %zu generations, best %.4f ms; search %.1f s", gl.search.kept.c_str(),
                  gl.search.digits, gl.search.measured, gl.search.generations, gl.search.best_measured, s);
    line(name, "graph-level placement", median_ms(gpu, gl.graph, a.repeats), base, rest);
    for (auto const& d : gl.search.decisions) std::printf("%-16s   graph-level choice: %s\n", name.c_str(), d.describe().c_str());
  }
  if (a.autograph > 0 && !over_budget("AutoGraph + placement")) {
    // AutoGraph's search on the placing runtime: every graph it measures is placed by the DP
    // over groups measured on this GPU, so substitutions, streams and placement go together.
    auto t = Clock::now();
    cuda::PlacingCudaRuntime<cuda::AllBackends> placing(gpu, {.database = db.path(), .copies = a.copies, .rounds = a.rounds, .progress = progress});
    Optimizer<Graph<>, rules::Default, MixedCriticalPath<0.25>, cuda::PlacingCudaRuntime<cuda::AllBackends>> opt(
        placing, OptimizerOptions{.time_limit_s = a.autograph});
    auto best = opt.optimize(g);
    double search_s = seconds_since(t);
    cuda::PlacedGraph const& placed = placing.placed(best.graph);
    auto c = cuda::compare(gpu, guarded.kept.graph, placed.graph, a.rounds);
    char rest[300];
    std::snprintf(rest, sizeof rest, "[%s] search %.1f s (%s), %zu graphs placed, %zu groups measured; %s %.4f ms of the guarded placement: %s",
                  cuda::nodes_per_backend(placed).c_str(), search_s, best.stop.describe().c_str(), placing.graphs_placed(), placing.groups_measured(),
                  c.faster ? "faster beyond noise than" : "not faster beyond noise than", c.incumbent_ms, c.faster ? "kept" : "not kept");
    line(name, "AutoGraph + placement", c.challenger_ms, base, rest);
    db = placement::CostDatabase(db.path(), db.device());  // what the placing runtime added to the file
  }
  std::printf("%-16s   %zu new groups in the cost database; model done in %.1f s\n", name.c_str(), db.size() - measured_before, seconds_since(t_model));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  try {
    cuda::CudaGraphRuntime gpu({.allow_tf32 = a.tf32});
    placement::CostDatabase db(a.db, cuda::cuda_device_name(gpu));
    std::printf("gpu_place on %s; cost database %s (%zu groups known for this device); %s; latencies: median of %d timings of 50 replays, Nimble\n",
                gpu.device().info().describe().c_str(), a.db.c_str(), db.size(), a.tf32 ? "TF32" : "FP32", a.repeats);
    std::fflush(stdout);
    auto t0 = Clock::now();
    int failed = 0;
    for (auto const& m : a.models) {
      try {
        run_model(a, m, gpu, db);
      } catch (std::exception const& e) {  // one model's failure must not cost the others their GPU time
        ++failed;
        std::printf("%-16s FAILED: %s\n", m.c_str(), e.what());
        std::fflush(stdout);
      }
    }
    std::printf("gpu_place: %zu models in %.1f s, %d failed\n", a.models.size(), seconds_since(t0), failed);
    return failed == 0 ? 0 : 1;
  } catch (std::exception const& e) {
    std::fprintf(stderr, "gpu_place: %s\n", e.what());
    return 1;
  }
}
