#pragma once
// One mapping of a rule's source onto a graph: which graph node each source op is, what each
// pattern variable is bound to, and which source values the target replaces.
#include <algorithm>
#include <boost/container/small_vector.hpp>
#include <cstdint>

#include "autograph/graph/value.hpp"

namespace autograph::rules {

struct Match {
  /// Matched source nodes, in the order of the rule's source ops (all are removed by the rewrite
  /// unless something outside still reads them through a mapped output).
  boost::container::small_vector<NodeId, 6> nodes;
  /// Values bound to the rule's variables (external inputs of the match).
  boost::container::small_vector<Value, 6> vars;
  /// Source values whose readers the rewrite moves to the target's outputs, in rule order.
  boost::container::small_vector<Value, 2> outputs;

  NodeId node(std::size_t i) const { return nodes[i]; }
  Value var(std::size_t i) const { return vars[i]; }
  bool contains(NodeId n) const { return std::ranges::find(nodes, n) != nodes.end(); }
  bool maps(Value v) const { return std::ranges::find(outputs, v) != outputs.end(); }
  friend bool operator==(Match const&, Match const&) = default;
};

}  // namespace autograph::rules
