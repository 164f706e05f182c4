// `autograph fuse`: AutoGTCO's graph-level fusion (DPOF, fusion/fuse.hpp) of a transformer
// against greedy fusion of every fusable group.
//
//   autograph fuse --model vit_b_16                       # groups timed on this CPU
//   autograph fuse --model detr_r50_e3 --runtime sim --device h100   # the roofline's estimate
//
// Finds the candidate groups (every match of rules::TransformerFusion), costs each fused and
// unfused (cpu: the group cut out and timed on the CPU runtime, once per distinct group; sim:
// the simulated device's roofline), lets DPOF choose, and prints, per rule, the groups found,
// what DPOF fused and what greedy fused, then the latency of the unfused, greedy and DPOF
// graphs (cpu: measured; sim: simulated) and the search time.
#include <autograph/cpu/in_model_group_timer.hpp>
#include <autograph/cpu/runtime.hpp>
#include <autograph/fusion/fuse.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/rules/apply_greedily.hpp>
#include <autograph/rules/transformer_fusion_engine.hpp>
#include <autograph/runtime/simulated_runtime.hpp>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "command.hpp"
#include "device_arg.hpp"

namespace {

using namespace autograph;

struct FuseCmdOptions {
  std::string model;
  std::string runtime = "cpu";
  std::string device = "h100";
  std::int64_t batch = 0, resolution = 0;
  double group_budget_ms = 20;
};

template <class GroupTimer, class Runtime>
int report_fuse(FuseCmdOptions const& o, Graph<> const& g, GroupTimer& group_rt, Runtime& graph_rt, std::string const& cost_name) {
  using Engine = rules::TransformerFusionEngine;
  using Clock = std::chrono::steady_clock;
  Engine engine;
  fusion::MeasuredGroupCost<BuiltinOps, GroupTimer, Engine> measured(group_rt, engine);
  std::map<std::string, fusion::GroupCost> example;  // one group's cost per rule, for the report
  auto cost = [&](Graph<> const& x, fusion::FusionGroup const& grp) {
    auto c = measured(x, grp);
    example.try_emplace(grp.rule, c);
    return c;
  };
  auto t0 = Clock::now();
  auto dp = fusion::fuse_by_dp(g, engine, cost);
  double dp_s = std::chrono::duration<double>(Clock::now() - t0).count();
  t0 = Clock::now();
  auto greedy = rules::apply_greedily(g, engine);
  double greedy_s = std::chrono::duration<double>(Clock::now() - t0).count();

  std::map<std::string, std::size_t> found;
  std::size_t chains = 0, chains_fused = 0;
  for (auto const& grp : fusion::fusion_groups(g, engine, true)) {
    ++found[grp.rule];
    chains += grp.steps.size() > 1;
  }
  for (auto const& r : dp.rounds)
    for (auto const& grp : r.chosen) chains_fused += grp.steps.size() > 1;
  std::printf("fuse %s — group costs: %s\n", o.model.c_str(), cost_name.c_str());
  std::printf("  %-30s %6s %6s %7s  %s\n", "rule", "found", "DPOF", "greedy", "one group: fused vs unfused ms");
  bool differ = false;
  for (std::size_t r = 0; r < engine.size(); ++r) {
    std::string name(engine.name(r));
    auto ex = example.find(name);
    std::string c = ex == example.end() ? "-" : cli::fixed(ex->second.fused, 4) + " vs " + cli::fixed(ex->second.unfused, 4);
    std::printf("  %-30s %6zu %6zu %7zu  %s%s\n", name.c_str(), found[name], dp.applications[r], greedy.applications[r], c.c_str(),
                dp.applications[r] != greedy.applications[r] ? "  <- differ" : "");
    differ = differ || dp.applications[r] != greedy.applications[r];
  }
  std::printf("  chains (a group and the fusion only it enables, one candidate): %zu found, %zu fused by DPOF\n", chains, chains_fused);
  for (std::size_t i = 0; i < dp.rounds.size(); ++i) {
    auto const& r = dp.rounds[i];
    std::printf("  DPOF round %zu: %zu groups, fused %zu, %zu not chosen (slower fused, or overlapping a chosen one); sum of fused - unfused %s ms; %zu DP states\n", i + 1,
                r.candidates, r.chosen.size(), r.rejected, cli::fixed(r.delta, 4).c_str(), r.states);
  }
  std::printf("  DPOF search %s s (%zu distinct groups measured in %s s, %zu answered from the memo; DP %s s); greedy %s s\n",
              cli::fixed(dp_s, 3).c_str(), measured.measured(), cli::fixed(measured.seconds(), 3).c_str(), measured.hits(),
              cli::fixed(dp.dp_seconds, 4).c_str(), cli::fixed(greedy_s, 3).c_str());
  std::printf("  DPOF %s\n", differ ? "differs from greedy (rows marked above)" : "fuses as many groups of each rule as greedy");
  double unfused = graph_rt.measure(g), greedy_ms = graph_rt.measure(greedy.graph), dp_ms = graph_rt.measure(dp.graph);
  std::printf("  latency ms: unfused %s, greedy %s, DPOF %s\n", cli::fixed(unfused, 3).c_str(), cli::fixed(greedy_ms, 3).c_str(),
              cli::fixed(dp_ms, 3).c_str());
  if constexpr (requires { graph_rt.compare(g, g); }) {
    if (differ) {  // medians taken seconds apart drift on a shared machine: time the two interleaved
      auto c = graph_rt.compare(greedy.graph, dp.graph);
      std::printf("  DPOF against greedy, interleaved: %s ms against %s ms, x%s%s, %d runs each\n", cli::fixed(c.challenger_ms, 3).c_str(),
                  cli::fixed(c.incumbent_ms, 3).c_str(), cli::fixed(c.incumbent_ms / c.challenger_ms, 3).c_str(),
                  c.faster ? " (faster beyond noise)" : " (not faster beyond noise)", static_cast<int>(c.runs));
    }
  }
  return 0;
}

int run_fuse(FuseCmdOptions const& o) {
  models::ModelOptions mo;
  if (o.batch > 0) mo.batch = o.batch;
  if (o.resolution > 0) mo.resolution = o.resolution;
  Graph<> g = models::build(o.model, mo);
  if (o.runtime == "cpu") {
    // Groups are small: each is timed with a budget (at least 5 runs); whole graphs with the
    // runtime's full runs.
    // Each group as a part of the model (cpu/in_model_group_timer.hpp), as optimize's DPOF times it.
    cpu::CpuRuntime group_rt({.budget_ms = o.group_budget_ms}), graph_rt;
    cpu::InModelGroupTimer in_model{group_rt};
    return report_fuse(o, g, in_model, graph_rt, "measured on this CPU, groups between channels-last neighbours (" + group_rt.kind() + ")");
  }
  using Sim = SimulatedRuntime<devices::AtRunTime>;
  DeviceSpec const& d = cli::device_arg(o.device);
  Sim sim(d);
  return report_fuse(o, g, sim, sim, "roofline of " + std::string(d.name) + " (simulated: an estimate, not a GPU measurement)");
}

autograph::cli::Register fuse_cmd{{"fuse", "Fuse a transformer's operators by AutoGTCO's DP (DPOF) and compare with greedy fusion", [](CLI::App& app) {
  auto o = std::make_shared<FuseCmdOptions>();
  app.add_option("--model", o->model, "A model of the zoo (see `autograph models`)")->required();
  app.add_option("--runtime", o->runtime, "cpu: group costs and latencies measured here; sim: the simulated device's roofline")
      ->check(CLI::IsMember({"cpu", "sim"}))
      ->capture_default_str();
  app.add_option("--device", o->device, std::string("The simulated device for --runtime sim: ") + cli::device_names)->capture_default_str();
  app.add_option("--batch", o->batch, "Batch size (default: the benchmark's)")->check(autograph::cli::positive_integer);
  app.add_option("--resolution", o->resolution, "Image side for the vision models (default: the published one)")
      ->check(autograph::cli::positive_integer);
  app.add_option("--group-budget", o->group_budget_ms, "Milliseconds of timed runs per group measurement (cpu; at least 5 runs)")
      ->capture_default_str();
  return [o] {
    if (o->runtime == "sim") cli::device_arg(o->device);  // an unknown device is refused before the model is built
    return run_fuse(*o);
  };
}}};

}  // namespace
