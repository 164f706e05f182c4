#pragma once
// apply_greedily(): a rule (or every rule of an engine) applied until nothing matches — the
// loop over find_matches() and rewrite() that users otherwise write by hand. Each pass applies
// every independent match of the current graph at once (apply_independent(), as the
// optimizer's rule probes do); the overlapping ones are found again on the next pass.
//
// A rule and its inverse, or a commutation, would undo each other forever, so the driver
// remembers every graph it produced and stops at one it has seen (structural equality, the
// identity search uses), and in any case after `max_passes`.
//
//   auto r = rules::apply_greedily(g, rules::FuseConvRelu{});
//   r.graph;                // every conv followed by a ReLU fused
//   r.applications[0];      // how many fusions
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "autograph/graph/structural_hash.hpp"
#include "autograph/rules/apply_independent.hpp"

namespace autograph::rules {

struct GreedyOptions {
  std::size_t max_passes = 64;  // passes of apply_independent(); each applies at least one match
  RewriteOptions rewrite = {};  // weight folding and its cache
};

/// Why apply_greedily() returned.
enum class GreedyStop {
  saturated,   // no rule matches the result (or none of its matches could be applied)
  repeated,    // the last pass produced a graph seen before (a rule undoing itself)
  pass_limit,  // max_passes passes applied something each
};

inline std::string_view to_string(GreedyStop s) {
  switch (s) {
    case GreedyStop::saturated: return "saturated";
    case GreedyStop::repeated: return "repeated a graph";
    case GreedyStop::pass_limit: return "pass limit";
  }
  return "?";
}

template <class Set>
struct GreedyResult {
  Graph<Set> graph;
  std::vector<std::size_t> applications;  // per rule, in the engine's numbering
  std::size_t passes = 0;                 // passes that applied something
  GreedyStop stop = GreedyStop::saturated;

  std::size_t total_applications() const {
    std::size_t n = 0;
    for (std::size_t a : applications) n += a;
    return n;
  }
};

namespace detail {
/// An engine behind references (a MatchApplier), so that the driver below compiles once per
/// operator set (src/defaults/ has it for BuiltinOps) rather than once per rule or engine.
template <class Set>
struct EngineRef {
  std::size_t rules;
  FunctionRef<std::vector<FoundMatch>(Graph<Set> const&)> find;
  FunctionRef<std::optional<Rewritten<Set>>(Graph<Set> const&, FoundMatch const&, RewriteOptions const&)> rewrite;

  std::size_t size() const { return rules; }
  std::vector<FoundMatch> find_matches(Graph<Set> const& g) const { return find(g); }
  std::optional<Rewritten<Set>> apply(Graph<Set> const& g, FoundMatch const& f, RewriteOptions const& o = {}) const { return rewrite(g, f, o); }
};

template <class Set>
GreedyResult<Set> apply_greedily(Graph<Set> g, EngineRef<Set> const& engine, GreedyOptions const& o);
}  // namespace detail

/// Applies the engine's rules to `g` until none applies, a graph repeats, or the pass limit.
template <class Set, MatchApplier<Set> Engine>
GreedyResult<Set> apply_greedily(Graph<Set> g, Engine const& engine, GreedyOptions const& o = {}) {
  auto find = [&](Graph<Set> const& x) { return engine.find_matches(x); };
  auto apply = [&](Graph<Set> const& x, FoundMatch const& f, RewriteOptions const& ro) { return engine.apply(x, f, ro); };
  return detail::apply_greedily<Set>(std::move(g), {engine.size(), find, apply}, o);
}

template <class Set>
GreedyResult<Set> detail::apply_greedily(Graph<Set> g, EngineRef<Set> const& engine, GreedyOptions const& o) {
  GreedyResult<Set> out{std::move(g), std::vector<std::size_t>(engine.size(), 0)};
  // Graphs produced so far, by structural hash; equality confirms a hash hit.
  std::vector<std::pair<std::uint64_t, Graph<Set>>> seen{{structural_hash(out.graph), out.graph}};
  auto was_seen = [&](Graph<Set> const& x, std::uint64_t h) {
    for (auto const& [sh, sg] : seen)
      if (sh == h && structurally_equal(sg, x)) return true;
    return false;
  };
  for (;;) {
    if (out.passes == o.max_passes) {
      out.stop = GreedyStop::pass_limit;
      return out;
    }
    std::vector<FoundMatch> matches = engine.find_matches(out.graph);
    auto r = apply_independent(engine, out.graph, std::span<FoundMatch const>(matches), o.rewrite);
    if (r.applied.empty()) {
      out.stop = GreedyStop::saturated;
      return out;
    }
    for (std::size_t i : r.applied) ++out.applications[matches[i].rule];
    ++out.passes;
    out.graph = std::move(r.graph);
    std::uint64_t h = structural_hash(out.graph);
    if (was_seen(out.graph, h)) {
      out.stop = GreedyStop::repeated;
      return out;
    }
    seen.emplace_back(h, out.graph);  // copy-on-write: shares storage with out.graph
  }
}

/// One rule applied greedily (applications[0] counts it); a TASO rule too.
template <class Set, class R>
  requires Rule<R, Set>
GreedyResult<Set> apply_greedily(Graph<Set> g, R const& rule, GreedyOptions const& o = {}) {
  return apply_greedily(std::move(g), OneRule<Set, R>{rule}, o);
}

#if defined(AUTOGRAPH_PRECOMPILED)
// src/defaults/rules_core.cpp: the driver compiled once; each rule or engine costs its two calls.
extern template GreedyResult<BuiltinOps> detail::apply_greedily<BuiltinOps>(Graph<BuiltinOps>, detail::EngineRef<BuiltinOps> const&,
                                                                            GreedyOptions const&);
#endif

}  // namespace autograph::rules
