// The baselines on the CPU runtime (autograph/cpu/baselines.hpp).
#include "autograph/cpu/baselines.hpp"

namespace autograph::cpu {

std::vector<BaselineResult<BuiltinOps>> run_baselines(Graph<BuiltinOps> const& g, BaselineOptions const& opt, CpuRuntimeOptions const& runtime,
                                                      std::vector<rules::TasoRule<BuiltinOps>> const& runtime_rules,
                                                      double* measuring_seconds) {
  SequentialCpuRuntime seq(runtime);
  CpuRuntime nimble(runtime);
  auto results = run_baselines_on<rules::Default>(seq, nimble, g, opt, runtime_rules);
  if (measuring_seconds) *measuring_seconds = seq.measuring_seconds() + nimble.measuring_seconds();
  return results;
}

}  // namespace autograph::cpu
