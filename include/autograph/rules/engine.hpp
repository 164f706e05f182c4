#pragma once
// RuleEngine: a compile-time rule list plus runtime rules (TASO's collection) behind one
// numbering, so that search sees "rule i" whatever its kind. One match pass builds the
// MatchIndex once and runs every rule from its root types. The engine over the built-in
// library is rules::DefaultEngine (rules/default_engine.hpp); this header does not include the
// library, so code that names its own rules does not compile all 35 built-in ones.
//
//   rules::DefaultEngine engine(rules::load_taso_rules(path));
//   for (auto const& f : engine.find_matches(g))
//     if (auto r = engine.apply(g, f)) candidates.push_back(std::move(r->graph));
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "autograph/rules/rule.hpp"
#include "autograph/rules/taso_rule.hpp"

namespace autograph::rules {

/// A match and the rule (engine numbering) it belongs to.
struct FoundMatch {
  std::uint32_t rule = 0;
  Match match;
};

template <class Set, class List>
class RuleEngine;

template <class Set, class... Rs>
class RuleEngine<Set, Rules<Rs...>> {
  static_assert((Rule<Rs, Set> && ...), "every rule of the list must model rules::Rule for this operator set");

 public:
  using OpSet = Set;
  static constexpr std::size_t num_typed = sizeof...(Rs);

  RuleEngine() = default;
  explicit RuleEngine(std::vector<TasoRule<Set>> runtime) : runtime_(std::move(runtime)) {}

  std::size_t size() const { return num_typed + runtime_.size(); }
  std::string_view name(std::size_t rule) const {
    if (rule < num_typed) {
      static constexpr std::array<std::string_view, num_typed == 0 ? 1 : num_typed> names{rule_name(Rs{})...};
      return names[rule];
    }
    return runtime_.at(rule - num_typed).name();
  }
  std::span<TasoRule<Set> const> runtime_rules() const { return runtime_; }

  /// Calls f(rule, match) for every match of every rule in the indexed graph.
  void for_each_match(MatchIndex<Set> const& idx, FunctionRef<void(std::uint32_t, Match const&)> f) const;
  std::vector<FoundMatch> find_matches(Graph<Set> const& g) const;
  /// find_matches(g) with a hook around each rule's matching, for per-rule reports:
  /// `around(rule, run)` must call `run()` once (the caller times or counts it). The same
  /// matches in the same order; the index is built once, outside every hook.
  std::vector<FoundMatch> find_matches_each_rule(Graph<Set> const& g, FunctionRef<void(std::uint32_t, FunctionRef<void()>)> around) const;
  /// The matches of one rule only (engine numbering).
  std::vector<FoundMatch> find_matches(Graph<Set> const& g, std::uint32_t rule) const;

  /// Applies a match found by this engine to `g` (see rewrite()).
  std::optional<Rewritten<Set>> apply(Graph<Set> const& g, FoundMatch const& f, RewriteOptions const& o = {}, std::string* why = nullptr) const;

 private:
  std::vector<TasoRule<Set>> runtime_;
};

// The heavy members are defined outside the class: members defined inside a class template are
// implicitly inline, and GCC instantiates inline members at -O2 even where an `extern template`
// declaration (rules/default_engine.hpp) says a library already has them.

template <class Set, class... Rs>
void RuleEngine<Set, Rules<Rs...>>::for_each_match(MatchIndex<Set> const& idx, FunctionRef<void(std::uint32_t, Match const&)> f) const {
  std::uint32_t i = 0;
  (rules::for_each_match(Rs{}, idx, [&, r = i++](Match const& m) { f(r, m); }), ...);
  for (auto const& rule : runtime_) {
    std::uint32_t r = i++;
    rules::for_each_match(rule, idx, [&](Match const& m) { f(r, m); });
  }
}

template <class Set, class... Rs>
std::vector<FoundMatch> RuleEngine<Set, Rules<Rs...>>::find_matches(Graph<Set> const& g) const {
  MatchIndex<Set> idx(g);
  std::vector<FoundMatch> out;
  for_each_match(idx, [&](std::uint32_t r, Match const& m) { out.push_back({r, m}); });
  return out;
}

template <class Set, class... Rs>
std::vector<FoundMatch> RuleEngine<Set, Rules<Rs...>>::find_matches_each_rule(
    Graph<Set> const& g, FunctionRef<void(std::uint32_t, FunctionRef<void()>)> around) const {
  MatchIndex<Set> idx(g);
  std::vector<FoundMatch> out;
  std::uint32_t i = 0;
  auto one = [&](auto const& rule) {
    std::uint32_t r = i++;
    around(r, [&] { rules::for_each_match(rule, idx, [&](Match const& m) { out.push_back({r, m}); }); });
  };
  (one(Rs{}), ...);
  for (auto const& rule : runtime_) one(rule);
  return out;
}

template <class Set, class... Rs>
std::vector<FoundMatch> RuleEngine<Set, Rules<Rs...>>::find_matches(Graph<Set> const& g, std::uint32_t rule) const {
  if (rule >= size()) throw Error("RuleEngine::find_matches(): no rule " + std::to_string(rule) + " (" + std::to_string(size()) + " rules)");
  MatchIndex<Set> idx(g);
  std::vector<FoundMatch> out;
  auto sink = [&](Match const& m) { out.push_back({rule, m}); };
  if (rule < num_typed) {
    std::uint32_t i = 0;
    ((i++ == rule ? rules::for_each_match(Rs{}, idx, sink) : void()), ...);
  } else {
    rules::for_each_match(runtime_[rule - num_typed], idx, sink);
  }
  return out;
}

template <class Set, class... Rs>
std::optional<Rewritten<Set>> RuleEngine<Set, Rules<Rs...>>::apply(Graph<Set> const& g, FoundMatch const& f, RewriteOptions const& o,
                                                                   std::string* why) const {
  using Fn = std::optional<Rewritten<Set>> (*)(Graph<Set> const&, Match const&, RewriteOptions const&, std::string*);
  static constexpr std::array<Fn, num_typed == 0 ? 1 : num_typed> typed{
      +[](Graph<Set> const& gr, Match const& m, RewriteOptions const& opt, std::string* w) { return rewrite(gr, Rs{}, m, opt, w); }...};
  if (f.rule < num_typed) return typed[f.rule](g, f.match, o, why);
  return rewrite(g, runtime_.at(f.rule - num_typed), f.match, o, why);
}

}  // namespace autograph::rules
