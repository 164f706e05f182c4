// The scripted runtime's Optimizer, compiled once for the three test files that use it
// (scripted_runtime.hpp).
#include "scripted_runtime.hpp"

template class autograph::Optimizer<autograph::Graph<>, autograph::rules::Rules<autograph::rules::FuseConvRelu>, autograph::SumCost,
                                    autograph::toy::ScriptedRuntime>;
