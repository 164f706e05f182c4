#pragma once
// verify_rules over the built-in library, the transformer fusions and TASO's rules (what
// `autograph verify-rules` runs), compiled once in src/defaults/ for programs that link autograph::defaults
// (AUTOGRAPH_PRECOMPILED defined).
#include <vector>

#include "autograph/ops/builtin.hpp"
#include "autograph/rules/library/default.hpp"
#include "autograph/rules/library/transformer_fusion.hpp"
#include "autograph/rules/verify.hpp"

namespace autograph::rules {

#if defined(AUTOGRAPH_PRECOMPILED)
extern template std::vector<VerifyResult> verify_rules<BuiltinOps>(Default, VerifyOptions const&);
extern template std::vector<VerifyResult> verify_rules<BuiltinOps>(TransformerFusion, VerifyOptions const&);
extern template std::vector<VerifyResult> verify_rules<BuiltinOps>(std::span<TasoRule<BuiltinOps> const>, VerifyOptions const&);
extern template VerifyResult verify_rule<BuiltinOps>(TasoRule<BuiltinOps> const&, VerifyOptions const&);
#endif

}  // namespace autograph::rules
