// The scripted runtimes' Optimizers, compiled once for the test files that use them
// (scripted_runtime.hpp).
#include "scripted_runtime.hpp"

template class autograph::Optimizer<autograph::Graph<>, autograph::rules::Rules<autograph::rules::FuseConvRelu>, autograph::SumCost,
                                    autograph::toy::ScriptedRuntime>;
template class autograph::Optimizer<autograph::Graph<>, autograph::rules::Rules<autograph::rules::FuseConvRelu>, autograph::SumCost,
                                    autograph::toy::PairedScriptedRuntime>;
