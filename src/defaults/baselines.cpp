// The baselines and the default searches on every simulated device, compiled once (see
// reference_executor.cpp for how these files work). One file for the seven devices, not one
// each: most of a device's instantiation (the rule rewrites reached through the searches, the
// partition, the backtracking) does not depend on the device, and GCC instantiates it again in
// every file that uses it, so five files took 5 x 35 s of CPU; this one takes about 43 s for all seven.
#include <autograph/experiments/baselines.hpp>

namespace autograph {

#define AUTOGRAPH_INSTANTIATE_BASELINES(D)                                                                                      \
  template class Optimizer<Graph<BuiltinOps>, rules::Default, SumCost, SimulatedRuntime<D, schedule::Sequential>>;              \
  template class Optimizer<Graph<BuiltinOps>, rules::Default, MixedCriticalPath<0.25>, SimulatedRuntime<D, schedule::Nimble>>; \
  template std::vector<BaselineResult<BuiltinOps>> run_baselines<D, rules::Default, BuiltinOps>(                                 \
      Graph<BuiltinOps> const&, BaselineOptions const&, std::vector<rules::TasoRule<BuiltinOps>> const&);
AUTOGRAPH_INSTANTIATE_BASELINES(devices::H100)
AUTOGRAPH_INSTANTIATE_BASELINES(devices::H200)
AUTOGRAPH_INSTANTIATE_BASELINES(devices::A100)
AUTOGRAPH_INSTANTIATE_BASELINES(devices::V100)
AUTOGRAPH_INSTANTIATE_BASELINES(devices::RTX2080Ti)
AUTOGRAPH_INSTANTIATE_BASELINES(devices::P100)
AUTOGRAPH_INSTANTIATE_BASELINES(devices::K80)
#undef AUTOGRAPH_INSTANTIATE_BASELINES

}  // namespace autograph
