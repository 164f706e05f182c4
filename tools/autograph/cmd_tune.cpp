// `autograph tune`: AutoGTCO's tensor level on this machine's CPU — the fused attention
// subgraphs of a model tuned by measurement (issue 18).
//
//   autograph tune --model vit_b_16 --budget 300
//   autograph tune --model detr_r50_e3 --log tuning.jsonl
//
// Fuses the model with rules::TransformerFusion, collects the distinct FusedAttention problems
// (shapes) with how often each occurs, and tunes the tiled attention kernel's tiles for each
// (cpu/tuned/attention.hpp; the tuner of tuning/tuner.hpp: random annotation, an XGBoost cost
// model, evolutionary search, the budget spread by Eq. 4). Every measurement goes to the tuning
// log, so a second run measures nothing it already knows; a program that gives the CPU runtime
// the same log (cpu::tuned::use_tuning_log) runs each attention in its fastest configuration.
#include <autograph/cpu/runtime.hpp>
#include <autograph/cpu/tuned/attention.hpp>
#include <autograph/cpu/tuned/fused_attention_problem.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/rules/apply_greedily.hpp>
#include <autograph/rules/transformer_fusion_engine.hpp>
#include <autograph/tuning/report.hpp>
#include <autograph/tuning/tuner.hpp>
#include <autograph/tuning/tuning_log.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"

namespace {

using namespace autograph;
using cpu::tuned::Attention;

struct TuneCmdOptions {
  std::string model;
  std::int64_t budget = 300;
  std::string log = "autograph-tuning.jsonl";
  std::int64_t batch = 0, resolution = 0;
  std::uint64_t seed = 1;
  std::int64_t repeats = 7;
};

/// The kernel's time on random data: one run to warm the caches and the OpenMP team, then the
/// median of `repeats` runs. Buffers are made once per problem; the workspace per configuration.
class AttentionTimer {
 public:
  AttentionTimer(cpu::tuned::AttentionProblem const& p, std::int64_t repeats) : p_(p), repeats_(repeats) {
    auto vec = [](std::int64_t n, std::uint64_t seed) {
      Tensor t = Tensor::random(Shape{n}, seed);
      return std::vector<float>(t.data().begin(), t.data().end());
    };
    q_ = vec(p.batch * p.tq * p.d, 1);
    k_ = vec(p.batch * p.d * p.tk, 2);
    v_ = vec(p.batch * p.tk * p.dv, 3);
    out_.resize(static_cast<std::size_t>(p.batch * p.tq * p.dv));
    if (p.has_mask) mask_ = vec(p.batch * p.tq * p.tk, 4);  // the widest reach of any mask strides
  }
  double operator()(cpu::tuned::AttentionConfig const& c) {
    std::vector<float> ws(cpu::tuned::attention_workspace_floats(p_, c));
    auto once = [&] {
      auto t0 = std::chrono::steady_clock::now();
      cpu::tuned::attention(p_, c, q_.data(), k_.data(), v_.data(), p_.has_mask ? mask_.data() : nullptr, out_.data(), ws);
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    once();
    std::vector<double> t;
    for (std::int64_t i = 0; i < repeats_; ++i) t.push_back(once());
    std::nth_element(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2), t.end());
    return t[t.size() / 2];
  }

 private:
  cpu::tuned::AttentionProblem p_;
  std::int64_t repeats_;
  std::vector<float> q_, k_, v_, mask_, out_;
};

constexpr int interleaved_rounds = 9;

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

int run_tune(TuneCmdOptions const& o) {
  models::ModelOptions mo;
  if (o.batch > 0) mo.batch = o.batch;
  if (o.resolution > 0) mo.resolution = o.resolution;
  Graph<> g = models::build(o.model, mo);
  Graph<> fused = rules::apply_greedily(g, rules::TransformerFusionEngine{}).graph;

  // The distinct problems, weighted by how often the model runs each.
  std::map<std::string, std::size_t> index;
  std::vector<tuning::TuningTask<Attention>> tasks;
  std::size_t nodes = 0;
  for (NodeId id : fused.node_ids()) {
    auto const& n = fused[id];
    auto const* op = n.op.template get_if<FusedAttention>();
    if (!op) continue;
    ++nodes;
    std::vector<TensorDesc> in;
    for (Value v : n.inputs) in.push_back(fused[v.node].outputs[v.port]);
    auto [problem, why_not] = cpu::tuned::attention_problem_of(*op, in);
    if (!problem) {
      std::cout << "  " << n.name << ": not tunable (" << why_not << ")\n";
      continue;
    }
    auto [it, fresh] = index.try_emplace(Attention::signature(*problem), tasks.size());
    if (fresh)
      tasks.emplace_back(*problem, 1.0);
    else
      tasks[it->second].weight += 1;
  }
  if (tasks.empty())
    throw Error(o.model + ": no attention to tune (" + std::to_string(nodes) +
                " FusedAttention nodes after rules::TransformerFusion; the CNNs have none)");

  auto log = tuning::TuningLog::open(o.log);
  std::string const device = cpu::cpu_model_name();
  std::cout << "tune " << o.model << " on " << device << ": " << nodes << " fused attention nodes, " << tasks.size()
            << (tasks.size() == 1 ? " distinct shape" : " distinct shapes") << ", budget " << o.budget << " trials\n"
            << "  tuning log     " << o.log << " (" << log.records().size() << " records)\n";
  auto started = std::chrono::steady_clock::now();
  auto results = tuning::tune<Attention>(
      tasks, static_cast<std::size_t>(o.budget),
      [&](cpu::tuned::AttentionProblem const& p) { return AttentionTimer(p, o.repeats); },
      {.device = device, .log = &log, .seed = o.seed, .progress = [](tuning::TuneProgress const& p) {
         std::cerr << "\r  " << tuning::format_progress(p) << "   " << std::flush;
       }});
  std::cerr << "\n";
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << tuning::format_results<Attention>(results);
  for (auto const& r : results) {
    std::cout << "  best for " << r.signature << ": " << Attention::to_string(r.best_config) << "\n";
    if (r.best_so_far.empty()) continue;
    // The tuning curve: the best latency known after 1, 2, 4, ... trials of this run, and how many
    // trials it took to come within 5% of the best this run found (issue 18's measure).
    std::cout << "    curve (trials: best ms):";
    for (std::size_t n = 1;; n *= 2) {
      std::size_t at = std::min(n, r.best_so_far.size());
      std::cout << " " << at << ": " << cli::fixed(r.best_so_far[at - 1] * 1e3, 4);
      if (at == r.best_so_far.size()) break;
    }
    double final_best = r.best_so_far.back();
    std::size_t within = 0;
    while (r.best_so_far[within] > 1.05 * final_best) ++within;
    std::cout << "\n    within 5% of this run's best after " << within + 1 << " of " << r.best_so_far.size() << " trials\n";
  }
  // The default was measured once, first, when the process had just started (the clock
  // ramping, pages touched for the first time): 0.41 to 0.93 ms for ViT-B/16's attention over
  // four runs. The speedup over it is re-timed here, the two configurations alternating.
  std::cout << "re-timed, default and tuned alternating (" << interleaved_rounds << " rounds of " << o.repeats << " runs, medians):\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    AttentionTimer time(tasks[i].problem, o.repeats);
    std::vector<double> d, b;
    for (int round = 0; round < interleaved_rounds; ++round) d.push_back(time(results[i].default_config)), b.push_back(time(results[i].best_config));
    double dm = median(d), bm = median(b);
    std::cout << "  " << results[i].signature << ": default " << cli::fixed(dm * 1e3, 4) << " ms, tuned " << cli::fixed(bm * 1e3, 4) << " ms, x"
              << cli::fixed(dm / bm, 2) << "\n";
  }
  std::cout << "tuning took " << cli::fixed(seconds, 1) << " s (measured on this machine's CPU, medians of " << o.repeats << " runs)\n";
  return 0;
}

autograph::cli::Register tune_cmd{{"tune", "Tune the fused attention kernels of a transformer model by measurement (AutoGTCO's tensor level)", [](CLI::App& app) {
  auto o = std::make_shared<TuneCmdOptions>();
  app.add_option("--model", o->model, "A model of the zoo (see `autograph models`)")->required();
  app.add_option("--budget", o->budget, "Measurements in all, spread over the model's attention shapes")
      ->check(autograph::cli::positive_integer)->capture_default_str();
  app.add_option("--log", o->log, "The tuning log (JSON lines; created when missing, appended to)")->capture_default_str();
  app.add_option("--batch", o->batch, "Batch size (default: the benchmark's)")->check(autograph::cli::positive_integer);
  app.add_option("--resolution", o->resolution, "Image side (default: the published one)")->check(autograph::cli::positive_integer);
  app.add_option("--seed", o->seed, "Seeds the random annotation and the evolutionary search")->check(autograph::cli::seed_value)
      ->capture_default_str();
  app.add_option("--repeats", o->repeats, "Timed runs per measurement (their median)")->check(autograph::cli::positive_integer)
      ->capture_default_str();
  return [o] { return run_tune(*o); };
}}};

}  // namespace
