// rules::DefaultEngine and apply_independent()/apply_rebasing() over it, compiled once (see
// reference_executor.cpp for how these files work).
#include <autograph/rules/default_engine.hpp>

namespace autograph::rules {

template class RuleEngine<BuiltinOps, Default>;
template IndependentRewrites<BuiltinOps> apply_independent<BuiltinOps, DefaultEngine>(DefaultEngine const&, Graph<BuiltinOps> const&,
                                                                                     std::span<FoundMatch const>, RewriteOptions const&);
template IndependentRewrites<BuiltinOps> apply_rebasing<BuiltinOps, DefaultEngine>(DefaultEngine const&, Graph<BuiltinOps> const&,
                                                                                  std::span<FoundMatch const>, RewriteOptions const&);

}  // namespace autograph::rules
