// TASO's rules as runtime rules over the built-in operators (rules::TasoRule<BuiltinOps>: the
// pattern built from TASO's source graph, the target, the random examples), compiled once (see
// reference_executor.cpp for how these files work).
#include <autograph/rules/taso_rule.hpp>

template class autograph::rules::TasoRule<autograph::BuiltinOps>;
