// The baselines and the default searches, compiled once (see reference_executor.cpp for how
// these files work): on a simulated device given at run time, which serves every device (the
// tool's --device), and on the default device type H100, which tests and examples construct.
// One instantiation per device type had taken 35 s of CPU each, seven devices 43 s in one file.
#include <autograph/experiments/baselines.hpp>

namespace autograph {

#define AUTOGRAPH_INSTANTIATE_BASELINES(D)                                                                                      \
  template class Optimizer<Graph<BuiltinOps>, rules::Default, SumCost, SimulatedRuntime<D, schedule::Sequential>>;              \
  template class Optimizer<Graph<BuiltinOps>, rules::Default, MixedCriticalPath<0.25>, SimulatedRuntime<D, schedule::Nimble>>;
AUTOGRAPH_INSTANTIATE_BASELINES(devices::AtRunTime)
AUTOGRAPH_INSTANTIATE_BASELINES(devices::H100)
#undef AUTOGRAPH_INSTANTIATE_BASELINES
template std::vector<BaselineResult<BuiltinOps>> run_baselines<rules::Default, BuiltinOps>(DeviceSpec const&, Graph<BuiltinOps> const&,
                                                                                          BaselineOptions const&,
                                                                                          std::vector<rules::TasoRule<BuiltinOps>> const&);

}  // namespace autograph
