#pragma once
// rules::DefaultEngine: the RuleEngine over the built-in library (rules::Default), the engine
// the tool, the baselines and most users search with, and the two ways of applying many of
// its matches at once (rules/apply_independent.hpp).
//
// Programs that link autograph::defaults (AUTOGRAPH_PRECOMPILED defined) get it compiled once
// in src/defaults/ instead of in every translation unit: instantiating it costs ~25 s of CPU.
#include "autograph/ops/builtin.hpp"
#include "autograph/rules/apply_independent.hpp"
#include "autograph/rules/engine.hpp"
#include "autograph/rules/library/default.hpp"

namespace autograph::rules {

using DefaultEngine = RuleEngine<BuiltinOps, Default>;

#if defined(AUTOGRAPH_PRECOMPILED)
extern template class RuleEngine<BuiltinOps, Default>;
extern template IndependentRewrites<BuiltinOps> apply_independent<BuiltinOps, DefaultEngine>(DefaultEngine const&, Graph<BuiltinOps> const&,
                                                                                            std::span<FoundMatch const>, RewriteOptions const&);
extern template IndependentRewrites<BuiltinOps> apply_rebasing<BuiltinOps, DefaultEngine>(DefaultEngine const&, Graph<BuiltinOps> const&,
                                                                                         std::span<FoundMatch const>, RewriteOptions const&);
#endif

}  // namespace autograph::rules
