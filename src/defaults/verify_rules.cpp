// Verification of every built-in rule (`autograph verify-rules`), compiled once (see
// reference_executor.cpp for how these files work).
#include <autograph/rules/default_verification.hpp>

template std::vector<autograph::rules::VerifyResult> autograph::rules::verify_rules<autograph::BuiltinOps>(autograph::rules::Default,
                                                                                                            autograph::rules::VerifyOptions const&);
