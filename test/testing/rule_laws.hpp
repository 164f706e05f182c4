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

template <class R, class Set = BuiltinOps>
void expect_rewrites(std::string_view source, std::string_view expected, std::source_location at = std::source_location::current()) {
  std::string rule(rules::rule_name(R{}));
  try {
    Graph<Set> start = graph_literal<Set>(source);
    Graph<Set> want = graph_literal<Set>(expected);
    auto got = rules::apply_greedily(start, R{});
    if (got.total_applications() == 0) {
      ADD_FAILURE_AT(at.file_name(), static_cast<int>(at.line()))
          << rule << " did not rewrite " << source << ": " << rules::explain(R{}, start, start.outputs()[0].node);
    } else if (!structurally_equal(got.graph, want)) {
      ADD_FAILURE_AT(at.file_name(), static_cast<int>(at.line()))
          << rule << " rewrote " << source << "\n     to " << to_literal(got.graph) << "\n  not   " << expected << " (" << to_literal(want)
          << ")\n  after " << got.passes << " passes, stopped: " << rules::to_string(got.stop);
    }
  } catch (Error const& e) {
    ADD_FAILURE_AT(at.file_name(), static_cast<int>(at.line())) << rule << " on " << source << ": " << e.what();
  }
}

template <class R, class Set = BuiltinOps>
void expect_no_rewrite(std::string_view source, std::string_view reason, std::source_location at = std::source_location::current()) {
  std::string rule(rules::rule_name(R{}));
  try {
    Graph<Set> start = graph_literal<Set>(source);
    auto got = rules::apply_greedily(start, R{});
    if (got.total_applications() != 0) {
      ADD_FAILURE_AT(at.file_name(), static_cast<int>(at.line())) << rule << " rewrote " << source << " to " << to_literal(got.graph);
      return;
    }
    std::string why = rules::explain(R{}, start, start.outputs()[0].node);
    if (why.find(reason) == std::string::npos)
      ADD_FAILURE_AT(at.file_name(), static_cast<int>(at.line()))
          << rule << " on " << source << ": the reason is \"" << why << "\", not \"" << reason << "\"";
  } catch (Error const& e) {
    ADD_FAILURE_AT(at.file_name(), static_cast<int>(at.line())) << rule << " on " << source << ": " << e.what();
  }
}

}  // namespace autograph::testing
