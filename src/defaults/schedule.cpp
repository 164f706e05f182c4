// The kernel DAG, stream assignment and wait insertion every schedule and simulated run goes
// through, the simulation itself, and IOS's planner, compiled once (see reference_executor.cpp
// for how these files work, and core/precompiled.hpp for the non-template functions defined here).
#define AUTOGRAPH_DEFAULTS_INLINE
#define AUTOGRAPH_DEFINE_GRAPH
#define AUTOGRAPH_DEFINE_SCHEDULE
#define AUTOGRAPH_DEFINE_RUNTIME
#include <autograph/graph/matching.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <autograph/schedule/ios.hpp>
#include <autograph/schedule/kernel_dag.hpp>
#include <autograph/schedule/nimble.hpp>
#include <autograph/schedule/schedule.hpp>
#include <autograph/schedule/waits.hpp>

template autograph::KernelDag::KernelDag(autograph::Graph<autograph::BuiltinOps> const&, std::vector<char> const&);
template class autograph::detail::SimulatedGraph<autograph::BuiltinOps, autograph::RooflineCost>;
template autograph::schedule::IosResult<autograph::BuiltinOps> autograph::schedule::Ios::run_with<autograph::BuiltinOps>(
    autograph::Graph<autograph::BuiltinOps> const&, autograph::schedule::IosPrepare<autograph::BuiltinOps> const&) const;
template autograph::schedule::IosResult<autograph::BuiltinOps> autograph::schedule::Ios::replay<autograph::BuiltinOps>(
    autograph::Graph<autograph::BuiltinOps> const&, std::span<autograph::schedule::IosStage const>);
