#pragma once
// rules::DefaultEngine: the RuleEngine over the built-in library (rules::Default), the engine
// the tool, the baselines and most users search with.
//
// Programs that link autograph::defaults (AUTOGRAPH_PRECOMPILED defined) get it compiled once
// in src/defaults/ instead of in every translation unit: instantiating it costs ~25 s of CPU.
#include "autograph/ops/builtin.hpp"
#include "autograph/rules/engine.hpp"
#include "autograph/rules/library/default.hpp"

namespace autograph::rules {

using DefaultEngine = RuleEngine<BuiltinOps, Default>;

#if defined(AUTOGRAPH_PRECOMPILED)
extern template class RuleEngine<BuiltinOps, Default>;
#endif

}  // namespace autograph::rules
