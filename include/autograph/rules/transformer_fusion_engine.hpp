#pragma once
// rules::TransformerFusionEngine: the RuleEngine over rules::TransformerFusion. Programs that
// link autograph::defaults (AUTOGRAPH_PRECOMPILED defined) get it compiled once in
// src/defaults/ instead of in every translation unit that applies the fusions.
#include "autograph/ops/builtin.hpp"
#include "autograph/rules/engine.hpp"
#include "autograph/rules/library/transformer_fusion.hpp"

namespace autograph::rules {

using TransformerFusionEngine = RuleEngine<BuiltinOps, TransformerFusion>;

#if defined(AUTOGRAPH_PRECOMPILED)
extern template class RuleEngine<BuiltinOps, TransformerFusion>;
#endif

}  // namespace autograph::rules
