#pragma once
// Helpers the built-in rules share: typed access to a matched node, and random choices for the
// example graphs that numerical verification runs.
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>

#include "autograph/graph/builder.hpp"
#include "autograph/rules/expr.hpp"
#include "autograph/rules/rule.hpp"

namespace autograph::rules::detail {

/// The operator of node n, which the pattern guarantees is an O.
template <class O, class Set>
O const& op_at(Graph<Set> const& g, NodeId n) {
  return *g[n].op.template get_if<O>();
}

/// One of `choices`, uniformly.
inline std::int64_t pick(std::mt19937_64& rng, std::initializer_list<std::int64_t> choices) {
  std::uniform_int_distribution<std::size_t> d(0, choices.size() - 1);
  return *(choices.begin() + static_cast<std::ptrdiff_t>(d(rng)));
}
inline bool coin(std::mt19937_64& rng) { return std::bernoulli_distribution(0.5)(rng); }

/// The name a target node gets: the source root's name with a suffix.
template <class Set>
std::string derived_name(Graph<Set> const& g, NodeId n, char const* suffix) {
  return g[n].name.empty() ? std::string(suffix) : g[n].name + "/" + suffix;
}

}  // namespace autograph::rules::detail
