// Verification of every built-in rule (the default library and the transformer fusions) and of TASO's rules (`autograph verify-rules`), and the
// rule-independent verification loop every verify_rule() call runs, compiled once (see
// reference_executor.cpp for how these files work).
#include <autograph/rules/default_verification.hpp>

namespace autograph::rules {

template VerifyResult detail::verify<BuiltinOps>(detail::RuleUnderTest<BuiltinOps> const&, VerifyOptions const&);
template std::vector<VerifyResult> verify_rules<BuiltinOps>(Default, VerifyOptions const&);
template std::vector<VerifyResult> verify_rules<BuiltinOps>(TransformerFusion, VerifyOptions const&);
template std::vector<VerifyResult> verify_rules<BuiltinOps>(std::span<TasoRule<BuiltinOps> const>, VerifyOptions const&);
template VerifyResult verify_rule<BuiltinOps>(TasoRule<BuiltinOps> const&, VerifyOptions const&);

}  // namespace autograph::rules
