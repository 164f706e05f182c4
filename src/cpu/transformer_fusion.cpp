// DPOF on the CPU runtime (autograph/cpu/transformer_fusion.hpp).
#include "autograph/cpu/transformer_fusion.hpp"

#include <chrono>

#include "autograph/cpu/in_model_group_timer.hpp"
#include "autograph/cpu/runtime.hpp"
#include "autograph/fusion/fuse.hpp"
#include "autograph/rules/transformer_fusion_engine.hpp"


namespace autograph::cpu {

TransformerFusionResult fuse_transformer(Graph<BuiltinOps> const& g, TransformerFusionOptions const& o) {
  using Clock = std::chrono::steady_clock;
  auto const start = Clock::now();
  rules::TransformerFusionEngine engine;
  // The runtime that will run the graph (the measured faster of one stream and Nimble's), with
  // a small budget per group: `autograph fuse` measures its groups the same way.
  CpuRuntime group_rt({.budget_ms = o.group_budget_ms, .weight_seed = o.weight_seed});
  InModelGroupTimer in_model{group_rt};
  fusion::MeasuredGroupCost<BuiltinOps, InModelGroupTimer, rules::TransformerFusionEngine> cost(in_model, engine);
  auto dp = fusion::fuse_by_dp(g, engine, cost);
  TransformerFusionResult r;
  r.graph = std::move(dp.graph);
  for (std::size_t k = 0; k < engine.size(); ++k)
    if (dp.applications[k] > 0) r.applications.emplace(std::string(engine.name(k)), dp.applications[k]);
  r.rounds = dp.rounds.size();
  r.groups_measured = cost.measured();
  r.measuring_seconds = cost.seconds();
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

}  // namespace autograph::cpu
