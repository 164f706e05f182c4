// cpu_rule_gain: which substitution rules make a model faster on this CPU, measured.
//
//   cpu_rule_gain [--models inception_v3,nasnet_a_mobile] [--rules fold-conv-batchnorm,...] [--together]
//
// For each model (batch 1), each rule of rules::Default that matches it is applied alone
// wherever it matches (pass after pass, as the optimizer's rule probes do: probe_rules), and
// the rewritten graph (and with --together, the --rules applied one after another) is compared with the input on cpu::CpuRuntime: interleaved blocks of
// runs, medians, "faster" only beyond the noise margin (runtime/noise.hpp) — the evidence the
// optimizer itself decides on. Beside it, what the CPU roofline the search ranks candidates by
// (host_device_spec, nothing fitted) estimates the rewrite to save. Where a search keeps
// nothing on this machine, this says whether it is the estimate (a rule it believes in that
// does not pay here) or the measurement (a gain too small to show beyond the noise). The first
// row compares the input with itself: the control, what the noise alone shows.
#include <autograph/cost/policy.hpp>
#include <autograph/cpu/runtime.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/rules/default_engine.hpp>
#include <autograph/search/rule_probes.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  using namespace autograph;
  CLI::App app{"cpu_rule_gain: each rule alone, measured against the input graph on this CPU"};
  std::vector<std::string> model_names{"inception_v3", "nasnet_a_mobile", "randwire_ws", "resnet50", "bert"};
  std::vector<std::string> only;
  app.add_option("--models", model_names, "zoo models (autograph models)")->delimiter(',');
  app.add_option("--rules", only, "only these rules (default: every rule that matches)")->delimiter(',');
  bool together = false;
  app.add_flag("--together", together, "also apply the --rules one after another, in their order, and measure the result");
  CLI11_PARSE(app, argc, argv);
  try {
    for (auto const& m : model_names) models::model_info(m);  // unknown names fail before any work
    rules::DefaultEngine engine;
    cpu::CpuRuntime cpu;
    std::printf("measured on %s; estimates: the CPU roofline (MixedCriticalPath<0.25>, us)\n", cpu.kind().c_str());
    for (auto const& name : model_names) {
      Graph<> g = models::build(name, {.batch = 1});
      auto estimate = [&](Graph<> const& h) { return graph_cost(MixedCriticalPath<0.25>{}, h, cpu.cost_model()); };
      // A trail naming every rule that matches: probe_rules applies each alone.
      RewriteTrail every;
      std::set<std::string> names;
      for (auto const& f : engine.find_matches(g))
        if ((only.empty() || std::ranges::count(only, engine.name(f.rule))) && names.insert(std::string(engine.name(f.rule))).second) every = every.then(f.rule);
      auto probes = probe_rules(engine, g, every, [](Graph<> const&) { return std::numeric_limits<double>::quiet_NaN(); });
      double base = estimate(g);
      std::printf("\n%s: %zu ops, estimate %.0f\n%-28s %6s %10s %12s %12s %8s %s\n", name.c_str(), g.num_nodes(), base, "rule", "apps",
                  "est. gain", "input ms", "rewritten ms", "lead", "verdict");
      // The control: the input against a copy of itself, which must not measure faster.
      probes.insert(probes.begin(), RuleProbe<BuiltinOps>{"(the input itself)", {}, g, {}, 0.0});
      if (together && !only.empty()) {  // the rules one after another, each on the last one's graph
        RuleProbe<BuiltinOps> all{"together", {}, g, {}, 0.0};
        for (auto const& rule : only) {
          RewriteTrail just;  // this rule alone (probe_rules probes every rule its trail names)
          for (RuleId i = 0; i < engine.size(); ++i)
            if (engine.name(i) == rule) just = just.then(i);
          for (auto& p : probe_rules(engine, all.graph, just, [](Graph<> const&) { return 0.0; }))
            all = RuleProbe<BuiltinOps>{"together", {}, std::move(p.graph), all.trail.then(p.trail), 0.0};
        }
        probes.push_back(std::move(all));
      }
      for (auto const& p : probes) {
        Comparison c = cpu.compare(g, p.graph);
        std::printf("%-28s %6zu %9.1f%% %12.3f %12.3f %7.1f%% %s (%zu runs each)\n", p.rule.c_str(), p.trail.size(),
                    100 * (base - estimate(p.graph)) / base, c.incumbent_ms, c.challenger_ms,
                    100 * (c.incumbent_ms - c.challenger_ms) / c.incumbent_ms, c.faster ? "faster" : "not faster beyond noise", c.runs);
        std::fflush(stdout);
      }
    }
  } catch (std::exception const& e) {
    std::fprintf(stderr, "cpu_rule_gain: %s\n", e.what());
    return 1;
  }
}
