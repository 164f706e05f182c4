// The baselines on the CPU runtime (autograph/cpu/baselines.hpp).
#include "autograph/cpu/baselines.hpp"

#include <algorithm>

namespace autograph::cpu {

std::vector<BaselineResult<BuiltinOps>> run_baselines(Graph<BuiltinOps> const& g, BaselineOptions const& opt, CpuRuntimeOptions const& runtime,
                                                      std::vector<rules::TasoRule<BuiltinOps>> const& runtime_rules, CpuBaselineReport* report) {
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
    auto found = run_baselines_on<rules::Default>(seq, best, g, autograph, runtime_rules);
    // The schedule AutoGraph's graph runs with, raced once more (CpuRuntime::replan).
    if (report) report->autograph_plan = best.replan(found.back().graph);
    results.push_back(std::move(found.back()));
  }
  if (report) report->measuring_seconds = seq.measuring_seconds() + nimble.measuring_seconds() + best.measuring_seconds();
  return results;
}

}  // namespace autograph::cpu
