// The rule machinery every rule shares over the built-in operators (the match index, the
// matcher, the Rewriter, the bodies of rewrite(), explain() and apply_greedily()), compiled once rather than in
// every file that matches or rewrites (see reference_executor.cpp for how these files work).
#include <autograph/rules/apply_greedily.hpp>
#include <autograph/rules/rule.hpp>

namespace autograph::rules {

template class MatchIndex<BuiltinOps>;
template class Rewriter<BuiltinOps>;
template Status accept<BuiltinOps>(MatchIndex<BuiltinOps> const&, Match const&);
template void match_pattern<BuiltinOps>(Pattern<BuiltinOps> const&, MatchIndex<BuiltinOps> const&, NodeId, MatchSink, char const**);
template std::optional<Rewritten<BuiltinOps>> detail::rewrite<BuiltinOps>(Graph<BuiltinOps> const&, std::string_view,
                                                                           FunctionRef<Target(Rewriter<BuiltinOps>&)>, Match const&,
                                                                           RewriteOptions const&, std::string*);
template std::string detail::explain<BuiltinOps>(std::string_view, std::span<void const* const>,
                                                 FunctionRef<void(MatchIndex<BuiltinOps> const&, NodeId, MatchSink, char const**)>,
                                                 Graph<BuiltinOps> const&, NodeId);
template GreedyResult<BuiltinOps> detail::apply_greedily<BuiltinOps>(Graph<BuiltinOps>, detail::EngineRef<BuiltinOps> const&, GreedyOptions const&);

}  // namespace autograph::rules
