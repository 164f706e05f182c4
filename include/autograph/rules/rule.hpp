#pragma once
// The Rule concept, rule sets as type lists, and applying one match.
//
// A rule has a kebab-case name, the operator types its root may have (the matcher looks those
// up in the MatchIndex), a match() that reports every mapping rooted at a node, and an apply()
// that builds the target through a Rewriter and returns the values that replace the match's
// mapped outputs. Declarative rules derive from Rewrite (rules/expr.hpp) or PatternRule;
// rules whose source has a variable number of ops (a concat of any arity) derive from
// HandMatcher, write match() by hand and end it with offer() (accept()). TASO's rules are
// data: one runtime type (TasoRule) models the same concept.
//
//   struct FuseSwish : PatternRule<FuseSwish> {
//     static constexpr std::string_view name = "fuse-swish";
//     template <class Set> static Pattern<Set> source();      // x * sigmoid(x)
//     template <class Set> static Target apply(Rewriter<Set>&, Match const&);
//   };
#include <boost/container/small_vector.hpp>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>

#include "autograph/graph/closes_cycle.hpp"
#include "autograph/rules/match_index.hpp"
#include "autograph/rules/matcher.hpp"
#include "autograph/rules/pattern.hpp"
#include "autograph/rules/rewriter.hpp"

namespace autograph::rules {

/// What apply() built: the values replacing the match's outputs, in order, or why it could not.
struct Target {
  Status status;
  boost::container::small_vector<Value, 4> values;
  Target() = default;
  Target(std::initializer_list<Value> v) : values(v) {}  // NOLINT: `return {y};`
  template <class R>
    requires requires(R const& r) { std::ranges::begin(r); }
  explicit Target(R const& r) : values(std::ranges::begin(r), std::ranges::end(r)) {}
  static Target fail(char const* why) {
    Target t{};
    t.status = no_match(why);
    return t;
  }
};

/// A rule's name: a static `name` member or a `name()` function.
template <class R>
constexpr std::string_view rule_name(R const& r) {
  if constexpr (requires { { R::name } -> std::convertible_to<std::string_view>; })
    return R::name;
  else
    return r.name();
}

template <class R, class Set>
concept Rule = requires(R const& r, MatchIndex<Set> const& idx, NodeId n, MatchSink sink, Rewriter<Set>& rw, Match const& m) {
  { rule_name(r) } -> std::convertible_to<std::string_view>;
  { r.template roots<Set>() } -> std::convertible_to<std::span<void const* const>>;
  r.template match<Set>(idx, n, sink, static_cast<char const**>(nullptr));
  { r.template apply<Set>(rw, m) } -> std::same_as<Target>;
};

/// Random concrete graphs containing a match of rule R, for numerical verification; lives beside
/// the rule, not inside it:
///   template <> struct RuleExample<FactorMulOverAdd> {
///     template <class Set> static Graph<Set> make(std::mt19937_64& rng);
///   };
/// (A rule may instead have a static example<Set>(rng), as rules written before the trait do.)
template <class R>
struct RuleExample {};

/// Rules that can make random concrete graphs containing a match (for numerical verification).
template <class R, class Set>
concept VerifiableRule = Rule<R, Set> && (requires(std::mt19937_64& rng) {
                                            { RuleExample<R>::template make<Set>(rng) } -> std::same_as<Graph<Set>>;
                                          } || requires(R const& r, std::mt19937_64& rng) {
                                            { r.template example<Set>(rng) } -> std::same_as<Graph<Set>>;
                                          });

/// A random example graph of a VerifiableRule.
template <class Set, class R>
  requires VerifiableRule<R, Set>
Graph<Set> make_example(R const& rule, std::mt19937_64& rng) {
  if constexpr (requires { RuleExample<R>::template make<Set>(rng); })
    return RuleExample<R>::template make<Set>(rng);
  else
    return rule.template example<Set>(rng);
}

/// Matching and roots for rules whose source is a Pattern (Derived::source<Set>()).
template <class Derived>
struct PatternRule {
  template <class Set>
  static Pattern<Set> const& pattern() {
    static Pattern<Set> const p = Derived::template source<Set>();
    return p;
  }
  template <class Set>
  static std::span<void const* const> roots() {
    auto const& p = pattern<Set>();
    return p.nodes[p.root].types;
  }
  template <class Set>
  static void match(MatchIndex<Set> const& idx, NodeId root, MatchSink sink, char const** why = nullptr) {
    match_pattern(pattern<Set>(), idx, root, sink, why);
  }
};

/// Base of a rule matched by hand, because its source has a variable number of ops (a concat of
/// any arity): roots are the ops of types Roots (or Derived's own roots()); match() records why a
/// candidate fails with fail() and ends with offer(), which reports what accept() allows.
template <FixedString Name, class... Roots>
struct HandMatcher {
  static constexpr std::string_view name = Name;
  template <class Set>
  static std::span<void const* const> roots() {
    static void const* const t[] = {AnyOp::type_id_of<Roots>()...};
    return t;
  }
  /// Records why the last candidate failed (what explain() shows); `return fail(why, ...)`.
  static void fail(char const** why, char const* reason) {
    if (why) *why = reason;
  }
  template <class Set>
  static void offer(MatchIndex<Set> const& idx, Match const& m, MatchSink sink, char const** why) {
    if (Status s = accept(idx, m); !s) return fail(why, s.why);
    sink(m);
  }
};

/// A rule set: a type list, so an optimizer is instantiated over it at compile time.
template <class... Rs>
struct Rules {
  static constexpr std::size_t size = sizeof...(Rs);
};
template <class A, class B>
struct join;
template <class... As, class... Bs>
struct join<Rules<As...>, Rules<Bs...>> {
  using type = Rules<As..., Bs...>;
};
/// The rules of A followed by those of B.
template <class A, class B>
using join_t = typename join<A, B>::type;

/// Every match of `rule` in the graph indexed by `idx`. Roots that compute only from weights are
/// skipped: those subgraphs are constants (folded when weights have data).
template <class Set, class R>
void for_each_match(R const& rule, MatchIndex<Set> const& idx, MatchSink sink) {
  for (void const* t : rule.template roots<Set>())
    for (NodeId n : idx.nodes_of(t))
      if (!idx.weight_only(n)) rule.template match<Set>(idx, n, sink, nullptr);
}

namespace detail {
/// explain() for any rule: its name, roots and match(), behind references, so that the body
/// compiles once per operator set (src/defaults/ has it for BuiltinOps).
template <class Set>
std::string explain(std::string_view rule, std::span<void const* const> roots,
                    FunctionRef<void(MatchIndex<Set> const&, NodeId, MatchSink, char const**)> match, Graph<Set> const& g, NodeId node);
}  // namespace detail

/// Why `rule` does not match with its root at `node` (the reason the last candidate failed), or
/// an empty string when it does match there.
template <class Set, class R>
std::string explain(R const& rule, Graph<Set> const& g, NodeId node) {
  auto match = [&](MatchIndex<Set> const& idx, NodeId n, MatchSink sink, char const** why) { rule.template match<Set>(idx, n, sink, why); };
  return detail::explain<Set>(rule_name(rule), rule.template roots<Set>(), match, g, node);
}

template <class Set>
std::string detail::explain(std::string_view rule, std::span<void const* const> roots,
                            FunctionRef<void(MatchIndex<Set> const&, NodeId, MatchSink, char const**)> match, Graph<Set> const& g, NodeId node) {
  MatchIndex<Set> idx(g);
  if (std::ranges::find(roots, g[node].op.type_id()) == roots.end())
    return std::string(rule) + " does not start at " + std::string(g[node].op.name()) + " ops";
  bool found = false;
  char const* why = nullptr;
  match(idx, node, [&](Match const&) { found = true; }, &why);
  if (found) return {};
  return why ? why : "no candidate";
}

/// A rewritten graph and what changed.
template <class Set>
struct Rewritten {
  Graph<Set> graph;
  ChangeLog changes;
};

namespace detail {
/// rewrite() for any rule: the rule's name and its apply(), behind a reference, so that the
/// body compiles once per operator set (src/defaults/ has it for BuiltinOps).
template <class Set>
std::optional<Rewritten<Set>> rewrite(Graph<Set> const& g, std::string_view rule, FunctionRef<Target(Rewriter<Set>&)> apply, Match const& m,
                                      RewriteOptions const& o, std::string* why);
}  // namespace detail

/// Applies one match of `rule` to a copy of `g` (copy-on-write: the cost is the rewrite's size):
/// builds the target, moves the readers of each mapped output to the target's value, and removes
/// the source ops nothing reads any more. Returns nullopt when the target cannot be built for
/// this match (`why` says why).
template <class Set, class R>
std::optional<Rewritten<Set>> rewrite(Graph<Set> const& g, R const& rule, Match const& m, RewriteOptions const& o = {},
                                      std::string* why = nullptr) {
  return detail::rewrite<Set>(g, rule_name(rule), [&](Rewriter<Set>& rw) { return rule.template apply<Set>(rw, m); }, m, o, why);
}

template <class Set>
std::optional<Rewritten<Set>> detail::rewrite(Graph<Set> const& g, std::string_view rule, FunctionRef<Target(Rewriter<Set>&)> apply, Match const& m,
                                              RewriteOptions const& o, std::string* why) {
  Graph<Set> out = g;
  Rewriter<Set> rw(out, o);
  auto failed = [&](std::string reason) -> std::optional<Rewritten<Set>> {
    if (why) *why = std::string(rule) + ": " + reason;
    return std::nullopt;
  };
  std::vector<NodeId> changed;  // new nodes and the producers of the replacement values
  try {
    Target t = apply(rw);
    if (!t.status) return failed(t.status.why);
    if (t.values.size() != m.outputs.size())
      throw Error("rule " + std::string(rule) + " built " + std::to_string(t.values.size()) + " values for " + std::to_string(m.outputs.size()) +
                  " mapped outputs");
    for (std::size_t i = 0; i < t.values.size(); ++i) rw.replace_uses(m.outputs[i], t.values[i]);
    for (Value v : t.values) changed.push_back(v.node);
  } catch (ShapeError const& e) {
    return failed(e.what());
  } catch (GraphError const& e) {
    return failed(e.what());
  }
  std::vector<NodeId> candidates(m.nodes.begin(), m.nodes.end());
  candidates.insert(candidates.end(), rw.changes().added.begin(), rw.changes().added.end());
  rw.erase_dead(candidates);
  // Matches promise acyclicity only along the edges a pattern names: two matched ops that
  // the rule merges may still depend on each other (a conv reading another conv directly).
  changed.insert(changed.end(), rw.changes().added.begin(), rw.changes().added.end());
  if (closes_cycle(out, std::span<NodeId const>(changed))) return failed("the rewrite would close a cycle");
  ChangeLog log = rw.changes();
  return Rewritten<Set>{std::move(out), std::move(log)};
}

#if defined(AUTOGRAPH_PRECOMPILED)
// src/defaults/rules_core.cpp: what every rule's rewrite() and explain() share, compiled once.
extern template std::optional<Rewritten<BuiltinOps>> detail::rewrite<BuiltinOps>(Graph<BuiltinOps> const&, std::string_view,
                                                                                  FunctionRef<Target(Rewriter<BuiltinOps>&)>, Match const&,
                                                                                  RewriteOptions const&, std::string*);
extern template std::string detail::explain<BuiltinOps>(std::string_view, std::span<void const* const>,
                                                        FunctionRef<void(MatchIndex<BuiltinOps> const&, NodeId, MatchSink, char const**)>,
                                                        Graph<BuiltinOps> const&, NodeId);
#endif

}  // namespace autograph::rules
