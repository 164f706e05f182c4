// rules::DefaultEngine, compiled once (see reference_executor.cpp for how these files work).
#include <autograph/rules/default_engine.hpp>

template class autograph::rules::RuleEngine<autograph::BuiltinOps, autograph::rules::Default>;
