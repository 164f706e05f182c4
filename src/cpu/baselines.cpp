// The baselines on the CPU runtime (autograph/cpu/baselines.hpp).
#include "autograph/cpu/baselines.hpp"

#include <algorithm>
#include <chrono>

namespace autograph::cpu {

std::vector<BaselineResult<BuiltinOps>> run_baselines(Graph<BuiltinOps> const& g, BaselineOptions const& opt, CpuRuntimeOptions const& runtime,
                                                      std::vector<rules::TasoRule<BuiltinOps>> const& runtime_rules, CpuBaselineReport* report,
                                                      std::optional<TransformerFusionOptions> const& fusion) {
  SequentialCpuRuntime seq(runtime);
  NimbleCpuRuntime nimble(runtime);
  CpuRuntime best(runtime);
  // AutoGraph (always last in run_baselines_on's order) searches on the runtime that chooses
  // its schedule; the other configurations keep theirs.
  BaselineOptions others = opt, autograph = opt;
  std::erase(others.configurations, std::string("autograph"));
  bool wants_autograph = others.configurations.size() != opt.configurations.size();
  autograph.configurations = {"autograph"};
  std::vector<BaselineResult<BuiltinOps>> results;
  if (!others.configurations.empty() || !wants_autograph) results = run_baselines_on<rules::Default>(seq, nimble, g, others, runtime_rules);
  if (wants_autograph) {
    if (!fusion) {
      auto found = run_baselines_on<rules::Default>(seq, best, g, autograph, runtime_rules);
      // The schedule AutoGraph's graph runs with, raced once more (CpuRuntime::replan).
      if (report) report->autograph_plan = best.replan(found.back().graph);
      results.push_back(std::move(found.back()));
    } else {
      auto const started = std::chrono::steady_clock::now();
      if (opt.progress) opt.progress("autograph: transformer fusion (DPOF, group costs measured)");
      auto fused = fuse_transformer(g, *fusion);
      // The search starts from the fused graph; what it returns is verified here, once, against
      // the model as given (the search's own check would compare it with the fused graph only).
      autograph.verify = false;
      auto found = run_baselines_on<rules::Default>(seq, best, fused.graph, autograph, runtime_rules);
      auto r = std::move(found.back());
      for (auto const& [rule, n] : fused.applications) r.rewrites[rule] += n;
      r.search_seconds += fused.seconds;
      auto const verify_start = std::chrono::steady_clock::now();
      if (!opt.verify) {
        r.verification = Verification{};
        r.verification.why = "verification off";
      } else if (r.rewrites.empty()) {
        r.verification = Verification{};
        r.verification.ran = r.verification.passed = true;
        r.verification.why = "the input graph itself";
      } else {
        if (opt.verify_progress) opt.verify_progress(r.name);
        r.verification = verify_equivalent(g, r.graph, std::min(opt.tolerance, fused_graph_tolerance), opt.seed);
      }
      r.verify_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - verify_start).count();
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (report) {
        report->autograph_plan = best.replan(r.graph);
        fused.graph = {};
        report->fusion = std::move(fused);
      }
      results.push_back(std::move(r));
    }
  }
  if (report) {
    report->measuring_seconds = seq.measuring_seconds() + nimble.measuring_seconds() + best.measuring_seconds();
    report->schedule_choice = best.schedule_choice_stats();
  }
  return results;
}

}  // namespace autograph::cpu
