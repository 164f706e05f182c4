#pragma once
// Numerical verification of rules: for each rule, random concrete graphs that contain a match
// (the rule's example(), several shapes and parameters), every match rewritten, and source and
// target run on the reference executor with the same random inputs and weights
// (runtime/equivalence.hpp). Outputs must agree to float32 rounding by the project's one
// criterion (runtime/compare_outputs.hpp): normwise relative error per output,
// max |a - b| / max(max |a|, floor) <= rtol.
//
// Half of the trials give the weights data before rewriting (the Rewriter folds weight
// transforms with fold_with_reference()), half after (the transform ops stay in the graph and
// run in the executor), so both paths are checked.
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "autograph/graph/validate.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/ops/builtin.hpp"
#include "autograph/rules/fold_weights.hpp"
#include "autograph/rules/rule.hpp"
#include "autograph/rules/taso_rule.hpp"
#include "autograph/runtime/equivalence.hpp"

namespace autograph::rules {

struct VerifyOptions {
  int trials = 4;               // random example graphs per rule
  int matches_per_trial = 4;    // matches rewritten and checked per example
  double rtol = 1e-4;           // normwise relative error per output (runtime/compare_outputs.hpp)
  std::uint64_t seed = 1;
};

enum class Verdict { verified, failed, skipped };

struct VerifyResult {
  std::string rule;
  Verdict verdict = Verdict::verified;
  std::string reason;  // why it failed or was skipped
  int checks = 0;      // rewrites compared
  double max_error = 0;
};

struct VerifySummary {
  int verified = 0, failed = 0, skipped = 0;
};

inline VerifySummary summarize(std::span<VerifyResult const> rs) {
  VerifySummary s;
  for (auto const& r : rs) (r.verdict == Verdict::verified ? s.verified : r.verdict == Verdict::failed ? s.failed : s.skipped)++;
  return s;
}
inline std::string to_string(VerifySummary s) {
  return std::to_string(s.verified) + " verified, " + std::to_string(s.failed) + " failed, " + std::to_string(s.skipped) + " skipped";
}
inline std::string to_string(VerifyResult const& r) {
  char err[32];
  std::snprintf(err, sizeof err, "%.2e", r.max_error);
  std::string v = r.verdict == Verdict::verified ? "verified" : r.verdict == Verdict::failed ? "FAILED" : "skipped";
  std::string s = v + "  " + r.rule + "  (" + std::to_string(r.checks) + " rewrites, max rel. error " + err + ")";
  return r.reason.empty() ? s : s + ": " + r.reason;
}

namespace detail {
/// Normwise relative error of `b` against `a` with no floor (compare_outputs.hpp): 0 when they
/// agree exactly, +inf for differing shapes or non-finite values, or when `a` is all zero and `b` is not.
inline double relative_error(Tensor const& a, Tensor const& b) { return compare_output(a, b, INFINITY, 0).error; }
}  // namespace detail

namespace detail {
/// What verification needs of one rule, behind non-owning references, so that the loop below
/// compiles once per operator set (src/defaults/ has it for BuiltinOps) rather than once per
/// rule: only these four calls are the rule's own code.
template <class Set>
struct RuleUnderTest {
  std::string name;
  FunctionRef<Graph<Set>(std::mt19937_64&)> example;
  FunctionRef<void(MatchIndex<Set> const&, FunctionRef<void(Match const&)>)> for_each_match;
  FunctionRef<std::string(Graph<Set> const&, NodeId)> explain;
  FunctionRef<std::optional<Rewritten<Set>>(Graph<Set> const&, Match const&, RewriteOptions const&, std::string*)> rewrite;
};

template <class Set>
VerifyResult verify(RuleUnderTest<Set> const& rule, VerifyOptions const& o);
}  // namespace detail

/// Verifies one rule on random examples (see the file comment).
template <class Set, class R>
  requires VerifiableRule<R, Set>
VerifyResult verify_rule(R const& rule, VerifyOptions const& o = {}) {
  auto example = [&](std::mt19937_64& rng) { return make_example<Set>(rule, rng); };
  auto matches = [&](MatchIndex<Set> const& idx, FunctionRef<void(Match const&)> sink) { rules::for_each_match(rule, idx, sink); };
  auto why = [&](Graph<Set> const& g, NodeId id) { return rules::explain(rule, g, id); };
  auto apply = [&](Graph<Set> const& g, Match const& m, RewriteOptions const& ro, std::string* w) { return rules::rewrite(g, rule, m, ro, w); };
  return detail::verify<Set>({std::string(rule_name(rule)), example, matches, why, apply}, o);
}

template <class Set>
VerifyResult detail::verify(RuleUnderTest<Set> const& rule, VerifyOptions const& o) {
  VerifyResult res;
  res.rule = rule.name;
  auto fail = [&](std::string why) {
    res.verdict = Verdict::failed;
    res.reason = std::move(why);
    return res;
  };
  ReferenceExecutor<Set> exec;
  for (int t = 0; t < o.trials; ++t) {
    std::uint64_t seed = hash_combine(hash_combine(o.seed, hash_value(res.rule)), static_cast<std::uint64_t>(t));
    std::mt19937_64 rng(seed);
    Graph<Set> g;
    try {
      g = rule.example(rng);
    } catch (Error const& e) {
      if (t == 0) {
        res.verdict = Verdict::skipped;
        res.reason = e.what();
        return res;
      }
      continue;
    }
    bool fill_before = t % 2 == 0;
    if (fill_before) fill_random_weights(g, seed);
    auto inputs = random_inputs(g, seed);
    MatchIndex<Set> idx(g);
    std::vector<Match> matches;
    rule.for_each_match(idx, [&](Match const& m) { matches.push_back(m); });
    if (matches.empty()) {
      std::string why = "no reason recorded";
      for (NodeId id : g.node_ids())
        if (auto w = rule.explain(g, id); !w.empty() && w.find("does not start at") == std::string::npos) why = w;
      return fail("the rule does not match its own example (trial " + std::to_string(t) + "): " + why);
    }
    Graph<Set> source = g;
    if (!fill_before) fill_random_weights(source, seed);
    auto expected = expected_outputs(source, inputs, exec);
    int rewritten = 0;
    std::string last_why;
    for (std::size_t k = 0; k < matches.size() && rewritten < o.matches_per_trial; ++k) {
      auto r = rule.rewrite(g, matches[k], {.fold = fold_with_reference}, &last_why);
      if (!r) continue;
      ++rewritten;
      try {
        validate(r->graph);
      } catch (Error const& e) {
        return fail(std::string("the rewritten graph is invalid: ") + e.what());
      }
      if (!fill_before) fill_random_weights(r->graph, seed);
      OutputComparison c;
      try {
        c = compare_to_expected(expected, r->graph, inputs, o.rtol, exec);
      } catch (Error const& e) {
        return fail(std::string("the rewritten graph does not run: ") + e.what());
      }
      ++res.checks;
      res.max_error = std::max(res.max_error, c.error);
      if (!c.passed)
        return fail("an output differs after rewriting: " + c.why + " (trial " + std::to_string(t) + ", shapes of the example: " +
                    g.desc(g.outputs()[c.output]).shape.to_string() + ")");
    }
    if (rewritten == 0) return fail("no match of the example could be rewritten: " + last_why);
  }
  return res;
}

#if defined(AUTOGRAPH_PRECOMPILED)
// Compiled once in src/defaults/verify_rules.cpp: each rule verified costs only its own calls.
extern template VerifyResult detail::verify<BuiltinOps>(detail::RuleUnderTest<BuiltinOps> const&, VerifyOptions const&);
#endif

/// Every rule of a rule list.
template <class Set, class... Rs>
std::vector<VerifyResult> verify_rules(Rules<Rs...>, VerifyOptions const& o = {}) {
  return {verify_rule<Set>(Rs{}, o)...};
}

/// Every rule of a runtime collection (TASO's).
template <class Set>
std::vector<VerifyResult> verify_rules(std::span<TasoRule<Set> const> rules, VerifyOptions const& o = {}) {
  std::vector<VerifyResult> r;
  for (auto const& rule : rules) r.push_back(verify_rule<Set>(rule, o));
  return r;
}

}  // namespace autograph::rules
