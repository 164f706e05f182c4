// The check every baseline's graph passes before it is reported, compiled once rather than in
// each device's file (see reference_executor.cpp for how these files work).
#include <autograph/experiments/baselines.hpp>

template autograph::Verification autograph::verify_equivalent<autograph::BuiltinOps>(autograph::Graph<autograph::BuiltinOps> const&,
                                                                                     autograph::Graph<autograph::BuiltinOps> const&, double,
                                                                                     std::uint64_t);
