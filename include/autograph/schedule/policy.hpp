#pragma once
// Schedule policies: a policy turns a graph into a ScheduledGraph, asking a Measurer
// (schedule/measurer.hpp; every Runtime is one) for costs where it needs them (greedy for
// kernel times, IOS for stage times).
//
//   template <class Set, Measurer<Set> R>
//   ScheduledGraph<Set> operator()(Graph<Set> const& g, R& runtime) const;
//
// The graph comes back with the schedule because a policy may rewrite it (IOS merges
// convolutions that read the same input); the others return `g` itself (a cheap copy).
#include <concepts>
#include <string>
#include <string_view>

#include "autograph/graph/graph.hpp"
#include "autograph/schedule/measurer.hpp"
#include "autograph/schedule/schedule.hpp"

namespace autograph {

template <class Set>
struct ScheduledGraph {
  Graph<Set> graph;
  Schedule schedule;
  std::string policy;          // "nimble", "ios", ...
  double search_seconds = 0;   // wall time the policy took
};

template <class P, class R, class Set = BuiltinOps>
concept SchedulePolicy = Measurer<R, Set> && requires(P const& p, Graph<Set> const& g, R& r) {
  { P::name } -> std::convertible_to<std::string_view>;
  { p(g, r) } -> std::same_as<ScheduledGraph<Set>>;
};

}  // namespace autograph
