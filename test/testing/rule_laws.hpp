#pragma once
// Rule tests as laws, one line each:
//
//   expect_rewrites<rules::FactorMulOverAdd>("add(mul(a,b),mul(a,c))", "mul(a,add(b,c))");
//   expect_no_rewrite<rules::FactorMulOverAdd>("add(mul(a,b),mul(c,d))", "reason substring");
//
// expect_rewrites applies the rule greedily (rules::apply_greedily) and compares the result
// with the expected literal by structural equality (node numbering and names aside; the
// operands of commutative ops in either order). A failure prints the graph it got as a
// literal. expect_no_rewrite checks that no match exists and that rules::explain(), asked at
// the first output's node, gives the reason.
#include <gtest/gtest.h>

#include <autograph/graph/structural_hash.hpp>
#include <autograph/rules/apply_greedily.hpp>
#include <source_location>
#include <string>
#include <string_view>

#include "testing/graph_literal.hpp"

namespace autograph::testing {

/// The graph the rule leaves when applied greedily to the literal `source`.
template <class R, class Set = BuiltinOps>
rules::GreedyResult<Set> rewrite_greedily(std::string_view source) {
  return rules::apply_greedily(graph_literal<Set>(source), R{});
}

namespace detail {
/// What a law needs of its rule, behind references: the checks below then compile once per
/// file, not once per rule.
struct RuleUnderLaw {
  std::string name;
  rules::FunctionRef<rules::GreedyResult<BuiltinOps>(Graph<BuiltinOps> const&)> rewrite_greedily;
  rules::FunctionRef<std::string(Graph<BuiltinOps> const&, NodeId)> explain;
};

template <class R>
RuleUnderLaw rule_under_law(R const& rule, auto const& greedy, auto const& explain) {
  return {std::string(rules::rule_name(rule)), greedy, explain};
}

inline void expect_rewrites(RuleUnderLaw const& rule, std::string_view source, std::string_view expected, std::source_location at) {
  try {
    Graph<BuiltinOps> start = graph_literal<BuiltinOps>(source);
    Graph<BuiltinOps> want = graph_literal<BuiltinOps>(expected);
    auto got = rule.rewrite_greedily(start);
    if (got.total_applications() == 0) {
      ADD_FAILURE_AT(at.file_name(), static_cast<int>(at.line()))
          << rule.name << " did not rewrite " << source << ": " << rule.explain(start, start.outputs()[0].node);
    } else if (!structurally_equal(got.graph, want)) {
      ADD_FAILURE_AT(at.file_name(), static_cast<int>(at.line()))
          << rule.name << " rewrote " << source << "\n     to " << to_literal(got.graph) << "\n  not   " << expected << " (" << to_literal(want)
          << ")\n  after " << got.passes << " passes, stopped: " << rules::to_string(got.stop);
    }
  } catch (Error const& e) {
    ADD_FAILURE_AT(at.file_name(), static_cast<int>(at.line())) << rule.name << " on " << source << ": " << e.what();
  }
}

inline void expect_no_rewrite(RuleUnderLaw const& rule, std::string_view source, std::string_view reason, std::source_location at) {
  try {
    Graph<BuiltinOps> start = graph_literal<BuiltinOps>(source);
    auto got = rule.rewrite_greedily(start);
    if (got.total_applications() != 0) {
      ADD_FAILURE_AT(at.file_name(), static_cast<int>(at.line())) << rule.name << " rewrote " << source << " to " << to_literal(got.graph);
      return;
    }
    std::string why = rule.explain(start, start.outputs()[0].node);
    if (why.find(reason) == std::string::npos)
      ADD_FAILURE_AT(at.file_name(), static_cast<int>(at.line()))
          << rule.name << " on " << source << ": the reason is \"" << why << "\", not \"" << reason << "\"";
  } catch (Error const& e) {
    ADD_FAILURE_AT(at.file_name(), static_cast<int>(at.line())) << rule.name << " on " << source << ": " << e.what();
  }
}
}  // namespace detail

template <class R>
void expect_rewrites(std::string_view source, std::string_view expected, std::source_location at = std::source_location::current()) {
  auto greedy = [](Graph<BuiltinOps> const& g) { return rules::apply_greedily(g, R{}); };
  auto explain = [](Graph<BuiltinOps> const& g, NodeId n) { return rules::explain(R{}, g, n); };
  detail::expect_rewrites(detail::rule_under_law(R{}, greedy, explain), source, expected, at);
}

template <class R>
void expect_no_rewrite(std::string_view source, std::string_view reason, std::source_location at = std::source_location::current()) {
  auto greedy = [](Graph<BuiltinOps> const& g) { return rules::apply_greedily(g, R{}); };
  auto explain = [](Graph<BuiltinOps> const& g, NodeId n) { return rules::explain(R{}, g, n); };
  detail::expect_no_rewrite(detail::rule_under_law(R{}, greedy, explain), source, reason, at);
}

}  // namespace autograph::testing
