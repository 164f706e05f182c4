// AutoGraph with the backend placement on the CPU runtime (autograph/cpu/backends/placed_baselines.hpp).
#include "autograph/cpu/backends/placed_baselines.hpp"

namespace autograph {
template class Optimizer<Graph<BuiltinOps>, rules::Default, MixedCriticalPath<0.25>, cpu::PlacingCpuRuntime<cpu::AllBackends>>;
static_assert(OptimizerRuntime<cpu::PlacingCpuRuntime<cpu::AllBackends>, BuiltinOps> && ScreeningRuntime<cpu::PlacingCpuRuntime<cpu::AllBackends>> &&
              ComparingRuntime<cpu::PlacingCpuRuntime<cpu::AllBackends>> && DeadlineRuntime<cpu::PlacingCpuRuntime<cpu::AllBackends>>);
}  // namespace autograph

namespace autograph::cpu {

template PlacedGraph place(AllBackends, Graph<BuiltinOps> const&, CpuRuntime&, placement::CostDatabase&, PlaceOptions const&);
template Graph<PlacedOps> placed_graph(AllBackends, Graph<BuiltinOps> const&, placement::Placement const&,
    std::vector<std::string>*);

std::vector<BaselineResult<BuiltinOps>> run_placed_baselines(Graph<BuiltinOps> const& g, BaselineOptions const& opt, CpuRuntimeOptions const& runtime,
                                                             PlacingOptions const& placing,
                                                             std::vector<rules::TasoRule<BuiltinOps>> const& runtime_rules,
                                                             PlacedBaselineReport* report) {
  SequentialCpuRuntime seq(runtime);  // run_baselines_on's one-stream runtime: unused by the two configurations run here
  PlacingCpuRuntime<AllBackends> placed(runtime, placing);
  // run_baselines_on's "nimble" is the input graph measured on its second runtime, and its
  // "autograph" the search on that runtime: with the placing runtime there, they are the two
  // configurations of this file (and get its verification and time accounting).
  BaselineOptions o = opt;
  o.configurations = {"nimble", "autograph"};
  auto named = [](std::string const& c) { return c == "nimble" ? std::string("placement") : c == "autograph" ? std::string("autograph+placement") : c; };
  if (opt.progress) o.progress = [&](std::string const& c) { opt.progress(named(c)); };
  if (opt.verify_progress) o.verify_progress = [&](std::string const& c) { opt.verify_progress(named(c)); };
  auto results = run_baselines_on<rules::Default>(seq, placed, g, o, runtime_rules);
  for (auto& r : results) r.name = named(r.name);
  if (report) {
    report->placement_backends = placed.node_backends(results[0].graph);
    report->autograph_backends = placed.node_backends(results[1].graph);
    report->autograph_plan = placed.replan(results[1].graph);  // raced once more, as run_baselines does for AutoGraph
    report->measuring_seconds = placed.measuring_seconds();
    report->placing_seconds = placed.placing_seconds();
    report->graphs_placed = placed.graphs_placed();
    report->groups_measured = placed.groups_measured();
    report->database_entries = placed.database().size();
  }
  return results;
}

}  // namespace autograph::cpu
