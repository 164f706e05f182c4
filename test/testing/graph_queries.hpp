#pragma once
// Small questions tests ask of a graph: how many nodes run an op, how many trainable weights
// sit under a name prefix.
#include <autograph/graph/graph.hpp>
#include <autograph/graph/stats.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace autograph::testing {

/// Nodes whose op is called `name` ("Conv2D", "Relu", ...).
template <class Set>
std::size_t count_ops(Graph<Set> const& g, std::string_view name) {
  std::size_t n = 0;
  for (NodeId id : g.node_ids()) n += g[id].op.name() == name;
  return n;
}

/// Elements of the trainable weights whose node name starts with `prefix`.
template <class Set>
std::int64_t trainable_under(Graph<Set> const& g, std::string_view prefix) {
  std::int64_t n = 0;
  for (NodeId id : g.node_ids())
    if (is_trainable_weight(g, id) && g[id].name.starts_with(prefix)) n += g[id].template get_if<Weight>()->desc.numel();
  return n;
}

}  // namespace autograph::testing
