// cpu_rank: does the simulator rank the optimizer's candidate graphs the way this CPU does?
//
//   cpu_rank [--models inception_v3,bert_encoder_8x1024] [--candidates 10] [--search-s 20] [--passes 8]
//            [--budget-ms 300] [--schedule greedy-per-core|nimble] [--out benchmark/results/cpu-rank-<date>]
//
// For each model (batch 1, the zoo's published shapes):
// 1. Candidates: AutoGraph's search (Optimizer<Graph<>, rules::Default, MixedCriticalPath<0.25>>)
//    runs on a runtime that records every graph the optimizer asks it to measure (the input
//    graph, each round's top-k, the rule probes) and answers with the uncalibrated CPU roofline's
//    simulation, so the search needs no CPU time to decide. The distinct recorded graphs are
//    sorted by that estimate and --candidates of them taken at evenly spaced ranks (the first
//    and the last included), so that the set spans what the search saw.
// 2. Profile: cpu::profile over those candidates (every distinct kernel signature, alone, all
//    cores, the fastest of the runs: the machine is shared), then cpu::calibrate_host_device fits the roofline to the profile's kernel times.
//    Whole-graph latencies are never fitted to.
// 3. Measured: each candidate under --schedule's streams on cpu::CpuRuntime: greedy-per-core (the
//    default, the streams CpuRuntime runs a branchy graph on: one per core, its kernels timed
//    once per signature) or nimble (Nimble's, as the runs before 2026-12-07); --passes passes over
//    the candidates (the order rotating between passes), each at least 5 runs (--budget-ms of
//    runs); the latency is the fastest run. Other processes on the cores only ever slow a run
//    down, so on a shared machine the fastest run is the graph's own latency most nearly; the
//    median of all runs is recorded beside it.
// 4. Simulated: the same (graph, schedule) pairs on SimulatedRuntime<cpu::SimulatedHost> with
//    (a) the roofline of host_device_spec() (nothing fitted), (b) the calibrated roofline, and
//    (c) the profiled kernel times themselves (MeasuredCost: the table, no roofline).
//    After every model, (d) one roofline fitted to all models' kernels together.
// Spearman's rank correlation of each estimate against the measured latencies, per model, and
// the measurement's own repeatability (Spearman of the odd passes against the even ones): no
// estimate can be shown to rank better than the measurements agree with themselves.
#include <autograph/cost/rank_correlation.hpp>
#include <autograph/cpu/device_model.hpp>
#include <autograph/cpu/profiler.hpp>
#include <autograph/cpu/runtime.hpp>
#include <autograph/graph/structural_hash.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/rules/default_engine.hpp>
#include <autograph/search/optimizer.hpp>

#include <CLI/CLI.hpp>
#include <oneapi/dnnl/dnnl.h>  // dnnl_version()
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace autograph;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
void progress(std::string const& s) { std::cerr << "[cpu_rank] " << s << std::endl; }

std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

using HostRoofline = SimulatedRuntime<cpu::SimulatedHost, schedule::Nimble, RooflineCost>;
using HostTable = SimulatedRuntime<cpu::SimulatedHost, schedule::Nimble, MeasuredCost>;

/// The optimizer's runtime while gathering candidates: keeps every graph it is asked to
/// measure and answers with the uncalibrated roofline's simulation (copies share the record).
struct RecordingRuntime {
  HostRoofline sim;
  std::shared_ptr<std::vector<Graph<>>> seen = std::make_shared<std::vector<Graph<>>>();
  double measure(Graph<> const& g) {
    seen->push_back(g);
    return sim.measure(g);
  }
  std::string kind() const { return "recorded, " + sim.kind(); }
  RooflineCost const& cost_model() const { return sim.cost_model(); }
};

struct Candidate {
  std::string name;  // "c3": its place in the estimate's order among the recorded graphs; or the configuration
  bool searched = true;  // one of the search's graphs; false: a configuration the CPU benchmark compares
  ScheduledGraph<BuiltinOps> sg;
  std::vector<double> pass_ms;  // the fastest run of each pass
  double measured_ms = 0;       // the fastest run of all passes
  double median_ms = 0;         // the median of all runs
  std::map<std::string, double> simulated_ms;  // by estimator
};

struct Estimator {
  std::string name;
  std::function<double(Graph<> const&, Schedule const&)> simulate;
};

struct ModelResult {
  std::string model;
  std::size_t recorded = 0, distinct = 0;
  std::vector<Candidate> candidates;
  cpu::ProfileResult profile;
  std::vector<KernelTime> kernel_times;
  RooflineFit fit;
  double search_s = 0, profile_s = 0, measure_s = 0;
  std::string stop;
};

/// The search's candidates alone.
std::vector<Candidate> searched(ModelResult const& r) {
  std::vector<Candidate> c;
  for (auto const& x : r.candidates)
    if (x.searched) c.push_back(x);
  return c;
}

double spearman_of(std::vector<Candidate> const& cs, std::string const& estimator) {
  std::vector<double> x, y;
  for (auto const& c : cs) x.push_back(c.simulated_ms.at(estimator)), y.push_back(c.measured_ms);
  return spearman(x, y);
}

/// Split-half repeatability: the fastest runs of the odd passes ranked against those of the
/// even passes. Each half is half the measurement, so the whole ranks itself at least this well.
double repeatability(std::vector<Candidate> const& cs) {
  std::vector<double> odd, even;
  for (auto const& c : cs) {
    if (c.pass_ms.size() < 2) return std::nan("");
    double o = std::numeric_limits<double>::infinity(), e = o;
    for (std::size_t p = 0; p < c.pass_ms.size(); ++p) (p % 2 ? o : e) = std::min(p % 2 ? o : e, c.pass_ms[p]);
    odd.push_back(o), even.push_back(e);
  }
  return spearman(odd, even);
}

json fit_json(RooflineFit const& f) {
  return {{"compute_efficiency", f.device.compute_efficiency},
          {"matrix_gflops", f.device.matrix_f32_per_us() / 1e3},
          {"vector_gflops", f.device.fp32_per_us() / 1e3},
          {"bandwidth_efficiency", f.device.bandwidth_efficiency},
          {"bandwidth_gbs", f.device.bytes_per_us() / 1e3},
          {"launch_us", f.device.launch_us},
          {"rms_log_error", f.rms_log_error},
          {"start_rms_log_error", f.start_rms_log_error},
          {"kernels", f.kernels},
          {"skipped", f.skipped},
          {"compute_bound", f.compute_bound},
          {"bandwidth_bound", f.bandwidth_bound}};
}

std::string fmt(double v, int digits = 3) {
  if (std::isnan(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

/// What the data say about a model's correlations: the measurements' spread against their
/// noise, each estimate's most mis-ranked candidate, the kernels the calibrated roofline gets
/// most wrong, and the profiled kernels' sum against the measured latency.
std::string explain(std::vector<Candidate> const& cs, ModelResult const& r, std::vector<std::string> const& estimators, std::string const& calibrated,
                    bool with_kernels) {
  std::ostringstream o;
  std::vector<double> measured, noise;
  for (auto const& c : cs) {
    measured.push_back(c.measured_ms);
    auto [lo, hi] = std::ranges::minmax(c.pass_ms);
    noise.push_back((hi - lo) / lo);
  }
  auto [fastest, slowest] = std::ranges::minmax_element(measured);
  o << "\nMeasured: the candidates span " << fmt(*fastest, 2) << " to " << fmt(*slowest, 2) << " ms (" << fmt(100 * (*slowest / *fastest - 1), 1)
    << "% apart); one candidate's fastest runs differ between passes by " << fmt(100 * cpu::median(noise), 1) << "% (median over candidates, up to "
    << fmt(100 * *std::ranges::max_element(noise), 1) << "%); the odd passes rank the candidates against the even ones at ρ = " << fmt(repeatability(cs)) << ".\n";
  auto rm = ranks(measured);
  for (auto const& e : estimators) {
    std::vector<double> est;
    for (auto const& c : cs) est.push_back(c.simulated_ms.at(e));
    auto re = ranks(est);
    std::size_t worst = 0;
    for (std::size_t i = 1; i < cs.size(); ++i)
      if (std::abs(re[i] - rm[i]) > std::abs(re[worst] - rm[worst])) worst = i;
    double rho = spearman(est, measured);
    o << "- " << e << ": ρ = " << fmt(rho) << (rho >= 0.9 ? "" : " (below 0.9)") << "; most mis-ranked: " << cs[worst].name << ", measured rank "
      << fmt(rm[worst], 1) << " (" << fmt(cs[worst].measured_ms, 2) << " ms), simulated rank " << fmt(re[worst], 1) << " (" << fmt(est[worst], 2)
      << " ms); simulated spread " << fmt(100 * (*std::ranges::max_element(est) / *std::ranges::min_element(est) - 1), 1) << "%.\n";
  }
  if (!with_kernels) return o.str();
  CostTable table = r.profile.table();
  std::size_t i = static_cast<std::size_t>(fastest - measured.begin());
  Graph<> const& g = cs[i].sg.graph;
  double sum_us = 0;
  KernelDag dag(g);
  for (NodeId id : dag.nodes())
    if (auto const* e = table.find(r.profile.cpu, op_signature(g[id].op, input_descs(g, id)))) sum_us += e->us;
  o << "- The fastest candidate (" << cs[i].name << ", " << cs[i].sg.schedule.num_kernels() << " kernels, " << cs[i].sg.schedule.num_streams()
    << " streams): its profiled kernel times sum to " << fmt(sum_us / 1000, 2) << " ms; it measured " << fmt(cs[i].measured_ms, 2) << " ms.\n";
  std::vector<std::pair<double, KernelTime const*>> off;
  for (auto const& k : r.kernel_times)
    if (k.us > 0) off.emplace_back(k.weight * std::abs(std::log(roofline_us(r.fit.device, k) / k.us)), &k);
  std::ranges::sort(off, std::greater<>{}, &std::pair<double, KernelTime const*>::first);
  o << "- " << calibrated << ": rms log error " << fmt(r.fit.rms_log_error) << " over " << r.fit.kernels
    << " kernels; furthest off (occurrences x |log error|):";
  for (std::size_t k = 0; k < std::min<std::size_t>(3, off.size()); ++k) {
    auto const& t = *off[k].second;
    o << (k ? ";" : "") << " `" << t.signature << "` x" << t.weight << " profiled " << fmt(t.us, 1) << " µs, calibrated " << fmt(roofline_us(r.fit.device, t), 1) << " µs";
  }
  o << ".\n";
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cpu_rank: Spearman rank correlation of simulated against measured latency over the optimizer's candidates"};
  std::vector<std::string> model_names{"inception_v3", "nasnet_a_mobile", "randwire_ws", "resnet50", "squeezenet1_1", "bert_encoder_8x1024"};
  std::size_t per_model = 10;
  double search_s = 20, budget_ms = 300, profile_budget_ms = 40;
  int passes = 8;  // many short passes: the load of a shared machine changes from second to second
  std::string out;
  std::string schedule_name = "greedy-per-core";
  app.add_option("--models", model_names, "zoo models (autograph models)")->delimiter(',');
  app.add_option("--candidates", per_model, "candidates per model (at least 3)")->check(CLI::Range(3, 1000));
  app.add_option("--search-s", search_s, "time limit of each model's search");
  app.add_option("--passes", passes, "measurement passes over the candidates (at least 2: their agreement is the noise floor)")->check(CLI::Range(2, 100));
  app.add_option("--budget-ms", budget_ms, "per candidate per pass: timed runs up to this (at least 5 runs)");
  app.add_option("--profile-budget-ms", profile_budget_ms, "per profiled run (at least 5 runs)");
  app.add_option("--schedule", schedule_name, "the candidates' streams: greedy-per-core (CpuRuntime's own) or nimble")
      ->check(CLI::IsMember({"greedy-per-core", "nimble"}));
  app.add_option("--out", out, "output path without extension (default benchmark/results/cpu-rank-<date>)");
  CLI11_PARSE(app, argc, argv);

  auto t_all = Clock::now();
  std::string date = utc_now();
  if (out.empty()) out = "benchmark/results/cpu-rank-" + date.substr(0, 10);
  std::string load_start = load_average();
  for (auto const& m : model_names) models::model_info(m);  // unknown names fail before any work

  cpu::CpuRuntime cpu(cpu::CpuRuntimeOptions{.warmup = 2, .budget_ms = budget_ms, .weight_seed = 1});
  cpu::CpuRuntime profiler(cpu::CpuRuntimeOptions{.warmup = 1, .budget_ms = profile_budget_ms, .weight_seed = 1});
  int const cores = cpu.cores();
  DeviceSpec const host = cpu::host_device_spec(cores);
  progress(cpu.kind());
  // The streams every candidate and configuration runs on, measured and simulated alike.
  auto streams_of = [&](Graph<> const& h) {
    return schedule_name == "nimble" ? schedule::Nimble{}(h, cpu) : schedule::GreedyPerCore{}(h, cpu);
  };
  std::string const streams_name = schedule_name == "nimble" ? "Nimble's" : "greedy per core";

  std::vector<ModelResult> results;
  std::vector<std::string> failures;  // a model that failed: why (the others still run)
  for (auto const& name : model_names) try {
    ModelResult r;
    r.model = name;
    Graph<> g = models::build(name, {.batch = 1});

    // 1. The graphs the optimizer asks to measure.
    auto t = Clock::now();
    RecordingRuntime rec{HostRoofline(RooflineCost(host))};
    Optimizer<Graph<>, rules::Default, MixedCriticalPath<0.25>, RecordingRuntime> opt(rec, OptimizerOptions{.time_limit_s = search_s});
    auto found = opt.optimize(g);
    r.search_s = seconds_since(t);
    r.stop = found.stop.describe();
    auto const& seen = *opt.runtime().seen;
    r.recorded = seen.size();
    std::vector<std::pair<double, Graph<> const*>> distinct;
    std::set<std::uint64_t> hashes;
    for (auto const& h : seen)
      if (hashes.insert(structural_hash(h)).second) distinct.emplace_back(rec.sim.measure(h), &h);
    r.distinct = distinct.size();
    std::ranges::stable_sort(distinct, {}, &std::pair<double, Graph<> const*>::first);
    std::size_t take = std::min(per_model, distinct.size());
    std::set<std::size_t> picked;
    for (std::size_t i = 0; i < take; ++i)
      picked.insert(take == 1 ? 0 : (i * (distinct.size() - 1) + (take - 1) / 2) / (take - 1));
    for (std::size_t i : picked) r.candidates.push_back({"c" + std::to_string(i), true, streams_of(*distinct[i].second), {}, 0, 0, {}});
    // The configurations benchmark/cpu_bench.cpp compares beside the search's (as gpu_bench
    // gathers its candidates): the model as built on one stream and on --schedule's streams,
    // and the search's result on one stream.
    r.candidates.push_back({"as built, 1 stream", false, schedule::Sequential{}(g, cpu), {}, 0, 0, {}});
    r.candidates.push_back({"as built, " + streams_name, false, streams_of(g), {}, 0, 0, {}});
    r.candidates.push_back({"search result, 1 stream", false, schedule::Sequential{}(found.graph, cpu), {}, 0, 0, {}});
    progress(name + ": search " + fmt(r.search_s, 1) + " s, " + std::to_string(r.recorded) + " graphs measured by the optimizer, " +
             std::to_string(r.distinct) + " distinct, " + std::to_string(picked.size()) + " taken");

    // 2. Profile the candidates' kernels and fit the roofline to them.
    t = Clock::now();
    std::vector<Graph<>> graphs;
    for (auto const& c : r.candidates) graphs.push_back(c.sg.graph);
    r.profile = cpu::profile(std::span<Graph<> const>(graphs), profiler, {.fastest = true});
    r.kernel_times = cpu::profile_kernel_times(r.profile, std::span<Graph<> const>(graphs));
    r.fit = fit_roofline(host, r.kernel_times);
    r.profile_s = seconds_since(t);
    progress(name + ": profiled " + std::to_string(r.profile.entries.size()) + " kernel signatures in " + fmt(r.profile_s, 1) +
             " s; fit rms log error " + fmt(r.fit.rms_log_error) + " (unfitted " + fmt(r.fit.start_rms_log_error) + ")");

    // 3. Measure, in passes whose order rotates.
    t = Clock::now();
    std::size_t n = r.candidates.size();
    std::vector<std::vector<double>> samples(n);
    for (int p = 0; p < passes; ++p)
      for (std::size_t k = 0; k < n; ++k) {
        std::size_t i = (k + static_cast<std::size_t>(p) * n / static_cast<std::size_t>(passes)) % n;
        auto& c = r.candidates[i];
        auto s = cpu.prepare(c.sg.graph).samples(c.sg.schedule);
        c.pass_ms.push_back(*std::ranges::min_element(s));
        samples[i].insert(samples[i].end(), s.begin(), s.end());
      }
    for (std::size_t i = 0; i < n; ++i) {
      r.candidates[i].measured_ms = *std::ranges::min_element(r.candidates[i].pass_ms);
      r.candidates[i].median_ms = cpu::median(samples[i]);
    }
    r.measure_s = seconds_since(t);

    // 4. Simulate.
    std::vector<Estimator> estimators{
        {"roofline (host_device_spec, unfitted)", [&](Graph<> const& h, Schedule const& s) { return HostRoofline(RooflineCost(host)).measure(h, s); }},
        {"roofline (calibrated on this model's kernels)", [&](Graph<> const& h, Schedule const& s) { return HostRoofline(RooflineCost(r.fit.device)).measure(h, s); }},
        {"profiled kernel times (MeasuredCost)", [&](Graph<> const& h, Schedule const& s) { return HostTable(MeasuredCost(r.profile.table(), host)).measure(h, s); }}};
    for (auto& c : r.candidates)
      for (auto const& e : estimators) c.simulated_ms[e.name] = e.simulate(c.sg.graph, c.sg.schedule);
    std::string line = name + ": measured " + fmt(r.measure_s, 1) + " s; Spearman (search's candidates / with the configurations)";
    for (auto const& e : estimators) line += " | " + e.name + " " + fmt(spearman_of(searched(r), e.name)) + " / " + fmt(spearman_of(r.candidates, e.name));
    progress(line + " | measured odd vs even passes " + fmt(repeatability(searched(r))) + " / " + fmt(repeatability(r.candidates)));
    results.push_back(std::move(r));
  } catch (std::exception const& e) {
    failures.push_back(name + ": " + e.what());
    progress("FAILED " + failures.back());
  }

  // (d) One roofline for this CPU from every model's kernels.
  std::vector<KernelTime> all_kernels;
  std::set<std::string> pooled;
  for (auto const& r : results)
    for (auto const& k : r.kernel_times)
      if (pooled.insert(k.signature).second) all_kernels.push_back(k);
  RooflineFit pooled_fit = fit_roofline(host, all_kernels);
  std::string const pooled_name = "roofline (calibrated on all six models' kernels)";
  for (auto& r : results)
    for (auto& c : r.candidates) c.simulated_ms[pooled_name] = HostRoofline(RooflineCost(pooled_fit.device)).measure(c.sg.graph, c.sg.schedule);
  std::string load_end = load_average();
  double total_s = seconds_since(t_all);

  // ---- the report -------------------------------------------------------------------------
  std::vector<std::string> estimator_names{"roofline (host_device_spec, unfitted)", "roofline (calibrated on this model's kernels)", pooled_name,
                                           "profiled kernel times (MeasuredCost)"};
  dnnl_version_t const* v = dnnl_version();
  std::string onednn = std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
  json j;
  j["date"] = date;
  j["cpu"] = cpu::cpu_model_name();
  j["cores"] = cores;
  j["onednn"] = onednn;
  j["load_average"] = {{"start", load_start}, {"end", load_end}};
  j["settings"] = {{"candidates_per_model", per_model}, {"search_s", search_s}, {"passes", passes}, {"budget_ms", budget_ms}, {"profile_budget_ms", profile_budget_ms}};
  j["host_device"] = {{"peak_gflops", host.fp32_tflops * 1e3}, {"bandwidth_gbs", host.bandwidth_gbs}};
  j["pooled_fit"] = fit_json(pooled_fit);
  j["total_s"] = total_s;
  j["failures"] = failures;
  for (auto const& r : results) {
    json m{{"model", r.model}, {"recorded", r.recorded}, {"distinct", r.distinct}, {"search_s", r.search_s}, {"profile_s", r.profile_s},
           {"measure_s", r.measure_s}, {"search_stop", r.stop}, {"fit", fit_json(r.fit)},
           {"repeatability", {{"searched", repeatability(searched(r))}, {"with_configurations", repeatability(r.candidates)}}}};
    for (auto const& e : estimator_names) {
      m["spearman"]["searched"][e] = spearman_of(searched(r), e);
      m["spearman"]["with_configurations"][e] = spearman_of(r.candidates, e);
    }
    for (auto const& c : r.candidates) {
      json cj{{"name", c.name}, {"searched", c.searched}, {"kernels", c.sg.schedule.num_kernels()}, {"streams", c.sg.schedule.num_streams()}, {"measured_ms", c.measured_ms}, {"median_ms", c.median_ms},
              {"pass_ms", c.pass_ms}, {"simulated_ms", c.simulated_ms}};
      m["candidates"].push_back(cj);
    }
    // Kernels whose calibrated roofline time is furthest from their profiled time, by weighted log error.
    std::vector<std::pair<double, KernelTime const*>> off;
    for (auto const& k : r.kernel_times)
      if (k.us > 0) off.emplace_back(k.weight * std::abs(std::log(roofline_us(r.fit.device, k) / k.us)), &k);
    std::ranges::sort(off, std::greater<>{}, &std::pair<double, KernelTime const*>::first);
    for (std::size_t i = 0; i < std::min<std::size_t>(8, off.size()); ++i) {
      auto const& k = *off[i].second;
      m["worst_kernels"].push_back({{"signature", k.signature}, {"occurrences", k.weight}, {"profiled_us", k.us},
                                    {"calibrated_us", roofline_us(r.fit.device, k)}, {"unfitted_us", roofline_us(host, k)}});
    }
    j["models"].push_back(m);
  }
  std::filesystem::create_directories(std::filesystem::path(out).parent_path().empty() ? "." : std::filesystem::path(out).parent_path());
  std::ofstream(out + ".json") << j.dump(2) << "\n";

  std::ostringstream md;
  md << "# Rank correlation of simulated and measured latency on the CPU, " << date << "\n\n"
     << "- CPU: " << cpu::cpu_model_name() << ", " << cores << " cores; oneDNN " << onednn << "\n"
     << "- Load average (1, 5, 15 min) at the start: " << load_start << "; at the end: " << load_end
     << " (other processes on the cores slow measured runs down: a latency is the fastest run for that reason).\n"
     << "- Candidates per model: up to " << per_model << " of the distinct graphs AutoGraph's search (rules::Default, MixedCriticalPath<0.25>, "
     << search_s << " s) asked to measure, at evenly spaced ranks of the unfitted roofline's estimate; each run on "
     << streams_name << " streams. Second row of each model: the same plus the configurations the CPU benchmark compares (the model as built on "
     << "1 stream and on " << streams_name << " streams, the search's result on 1 stream).\n"
     << "- Measured: cpu::CpuRuntime, " << passes << " passes (order rotating), each at least 5 runs (up to " << budget_ms
     << " ms of runs); a latency is the fastest run (other processes only slow runs down; the medians are in the JSON). "
     << "Profile: each kernel's time from the fastest runs (cpu::ProfileOptions::fastest). Whole run: " << fmt(total_s / 60, 1) << " min.\n"
     << "- Simulated: SimulatedRuntime<cpu::SimulatedHost> on the same (graph, schedule) pairs. The calibrated rooflines are fitted to "
        "the profile's per-kernel times only (cpu::profile over the same candidates), never to these latencies.\n\n";
  md << "| model | graphs | measured: odd vs even passes |";
  for (auto const& e : estimator_names) md << " " << e << " |";
  md << "\n|---|---|---|";
  for (std::size_t i = 0; i < estimator_names.size(); ++i) md << "---|";
  md << "\n";
  for (auto const& r : results) {
    auto cs = searched(r);
    md << "| " << r.model << " | " << cs.size() << " of the search's " << r.distinct << " | " << fmt(repeatability(cs)) << " |";
    for (auto const& e : estimator_names) md << " " << fmt(spearman_of(cs, e)) << " |";
    md << "\n| " << r.model << " | the same + " << r.candidates.size() - cs.size() << " configurations | " << fmt(repeatability(r.candidates)) << " |";
    for (auto const& e : estimator_names) md << " " << fmt(spearman_of(r.candidates, e)) << " |";
    md << "\n";
  }
  for (auto const& f : failures) md << "\nFailed (left out): " << f << "\n";
  md << "\nSpearman's rank correlation (goal ≥ 0.9). \"Measured: odd vs even passes\": the fastest runs of the odd passes ranked against those of the even passes (the measurement's own repeatability; the full measurement takes the fastest of both halves).\n\n"
     << "## Fitted parameters\n\nThis machine unfitted (host_device_spec): " << fmt(host.fp32_tflops * 1e3, 1) << " GFLOP/s peak, "
     << fmt(host.bandwidth_gbs, 1) << " GB/s copy bandwidth, no per-kernel overhead.\n\n"
     << "| kernels of | matrix GFLOP/s | other GFLOP/s | bandwidth GB/s | launch µs | kernels | compute / bandwidth bound | rms log error (unfitted) |\n"
     << "|---|---|---|---|---|---|---|---|\n";
  auto fit_row = [&](std::string const& who, RooflineFit const& f) {
    md << "| " << who << " | " << fmt(f.device.matrix_f32_per_us() / 1e3, 1) << " | " << fmt(f.device.fp32_per_us() / 1e3, 1) << " | "
       << fmt(f.device.bytes_per_us() / 1e3, 1) << " | " << fmt(f.device.launch_us, 2) << " | " << f.kernels << (f.skipped ? " (+" + std::to_string(f.skipped) + " at 0 µs)" : "")
       << " | " << f.compute_bound << " / " << f.bandwidth_bound << " | " << fmt(f.rms_log_error) << " (" << fmt(f.start_rms_log_error) << ") |\n";
  };
  for (auto const& r : results) fit_row(r.model, r.fit);
  fit_row("all six", pooled_fit);
  md << "\n## Per candidate (ms)\n";
  for (auto const& r : results) {
    md << "\n### " << r.model << "\n\nSearch: " << fmt(r.search_s, 1) << " s (" << r.stop << "), " << r.recorded << " graphs measured by the optimizer, "
       << r.distinct << " distinct. Profile: " << r.profile.entries.size() << " signatures, " << fmt(r.profile_s, 1) << " s. Measuring: "
       << fmt(r.measure_s, 1) << " s.\n\n| candidate | kernels | streams | measured | passes |";
    for (auto const& e : estimator_names) md << " " << e << " |";
    md << "\n|---|---|---|---|---|";
    for (std::size_t i = 0; i < estimator_names.size(); ++i) md << "---|";
    md << "\n";
    for (auto const& c : r.candidates) {
      md << "| " << c.name << " | " << c.sg.schedule.num_kernels() << " | " << c.sg.schedule.num_streams() << " | " << fmt(c.measured_ms, 2) << " | ";
      for (std::size_t i = 0; i < c.pass_ms.size(); ++i) md << (i ? ", " : "") << fmt(c.pass_ms[i], 2);
      md << " |";
      for (auto const& e : estimator_names) md << " " << fmt(c.simulated_ms.at(e), 2) << " |";
      md << "\n";
    }
    md << "\nThe search's candidates alone:\n" << explain(searched(r), r, estimator_names, estimator_names[1], true);
    md << "\nWith the configurations:\n" << explain(r.candidates, r, estimator_names, estimator_names[1], false);
  }
  std::ofstream(out + ".md") << md.str();
  progress("wrote " + out + ".md and .json in " + fmt(total_s / 60, 1) + " min");
  return failures.empty() ? 0 : 1;
}
