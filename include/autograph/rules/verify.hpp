#pragma once
// Numerical verification of rules: for each rule, random concrete graphs that contain a match
// (the rule's example(), several shapes and parameters), every match rewritten, and source and
// target run on the reference executor with the same random inputs and weights. Outputs must
// agree to float32 rounding: max |a - b| <= rtol * max |a| per output.
//
// Half of the trials give the weights data before rewriting (the Rewriter folds weight
// transforms), half after (the transform ops stay in the graph and run in the executor), so
// both paths are checked.
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "autograph/graph/validate.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/rules/rule.hpp"
#include "autograph/rules/taso_rule.hpp"
#include "autograph/runtime/reference_executor.hpp"

namespace autograph::rules {

struct VerifyOptions {
  int trials = 4;               // random example graphs per rule
  int matches_per_trial = 4;    // matches rewritten and checked per example
  double rtol = 1e-4;           // relative to the largest magnitude of each output
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
/// max |a - b| / max |a| (0 when both are zero).
inline double relative_error(Tensor const& a, Tensor const& b) {
  if (a.shape() != b.shape()) return INFINITY;
  double diff = 0, scale = 0;
  auto x = a.data(), y = b.data();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) {
      if (!(std::isnan(x[i]) && std::isnan(y[i])) && x[i] != y[i]) return INFINITY;
      continue;
    }
    diff = std::max(diff, static_cast<double>(std::fabs(x[i] - y[i])));
    scale = std::max(scale, static_cast<double>(std::fabs(x[i])));
  }
  return scale == 0 ? diff : diff / scale;
}
}  // namespace detail

/// Verifies one rule on random examples (see the file comment).
template <class Set, class R>
  requires VerifiableRule<R, Set>
VerifyResult verify_rule(R const& rule, VerifyOptions const& o = {}) {
  VerifyResult res;
  res.rule = std::string(rule_name(rule));
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
      g = rule.template example<Set>(rng);
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
    std::map<std::string, Tensor> inputs;
    for (NodeId id : g.inputs()) {
      auto const& in = *g[id].op.template get_if<Input>();
      inputs.emplace(in.label, Tensor::random(in.desc.shape, hash_combine(seed, id)));
    }
    MatchIndex<Set> idx(g);
    std::vector<Match> matches;
    for_each_match(rule, idx, [&](Match const& m) { matches.push_back(m); });
    if (matches.empty()) {
      std::string why = "no reason recorded";
      for (NodeId id : g.node_ids())
        if (auto w = explain(rule, g, id); !w.empty() && w.find("does not start at") == std::string::npos) why = w;
      return fail("the rule does not match its own example (trial " + std::to_string(t) + "): " + why);
    }
    Graph<Set> source = g;
    if (!fill_before) fill_random_weights(source, seed);
    auto expected = exec.run(source, inputs);
    int rewritten = 0;
    std::string last_why;
    for (std::size_t k = 0; k < matches.size() && rewritten < o.matches_per_trial; ++k) {
      auto r = rewrite(g, rule, matches[k], {}, &last_why);
      if (!r) continue;
      ++rewritten;
      try {
        validate(r->graph);
      } catch (Error const& e) {
        return fail(std::string("the rewritten graph is invalid: ") + e.what());
      }
      if (!fill_before) fill_random_weights(r->graph, seed);
      std::vector<Tensor> got;
      try {
        got = exec.run(r->graph, inputs);
      } catch (Error const& e) {
        return fail(std::string("the rewritten graph does not run: ") + e.what());
      }
      ++res.checks;
      for (std::size_t i = 0; i < expected.size(); ++i) {
        double err = detail::relative_error(expected[i], got[i]);
        res.max_error = std::max(res.max_error, err);
        if (!(err <= o.rtol)) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.3g", err);
          return fail("output " + std::to_string(i) + " differs after rewriting (relative error " + buf + ", trial " + std::to_string(t) +
                      ", shapes of the example: " + g.desc(g.outputs()[i]).shape.to_string() + ")");
        }
      }
    }
    if (rewritten == 0) return fail("no match of the example could be rewritten: " + last_why);
  }
  return res;
}

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
