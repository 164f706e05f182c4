#pragma once
// A pattern rule (Collage §3, Listing 1, "Method 2"): instead of enumerating its patterns, a
// backend with a fusion engine states which operators it runs (valid_op) and which groups of
// them it fuses into one kernel (fusion); the pattern generator (pattern_generator.hpp) finds
// every group of a given graph the rule accepts.
//
//   PatternRule<Set> r{.name = "conv-eltwise",
//                      .valid_op = [](auto const& g, NodeId n) { return g[n].op.is<Conv2D>() || elementwise_op<Set>(g[n].op); },
//                      .fusion = [](auto const& g, std::span<NodeId const> group) { ... }};
//
// fusion() sees the whole candidate group (node ids ascending), so it can check what Collage's
// fusion_rule(cur_type, src, sink) checks — the kinds of the ops and the paths between them —
// and more (which values leave the group). The generator grows a group one node at a time and
// keeps growing only groups the rule accepts (Collage §3: "investigates how far a pattern can
// grow without breaking the pattern rule"), so a rule must accept the smaller groups its larger
// ones grow from: "a conv followed by any chain of elementwise ops" accepts the conv alone.
#include <cstddef>
#include <functional>
#include <span>
#include <string>

#include "autograph/graph/graph.hpp"
#include "autograph/ops/builtin.hpp"
#include "autograph/ops/op_set.hpp"

namespace autograph::placement {

template <class Set>
struct PatternRule {
  std::string name;
  std::function<bool(Graph<Set> const&, NodeId)> valid_op;
  std::function<bool(Graph<Set> const&, std::span<NodeId const>)> fusion;
  std::size_t max_size = 8;  // the largest group the generator builds for this rule
};

// ---- vocabulary for rules (Collage's kElemwise / kFusable, TVM's OpPatternKind) ------------

/// An elementwise operator (ops/operator.hpp's is_elementwise trait: Relu, Add, Scale, ...).
template <class Set>
bool elementwise_op(AnyOp const& op) {
  return visit_op<Set>(op, []<class O>(O const&) { return autograph::is_elementwise<O>; });
}

/// An operator whose output a fusion engine can post-process in the same kernel (Collage's
/// kFusable: convolution and matrix multiplication).
inline bool out_fusable_op(AnyOp const& op) { return op.is<Conv2D>() || op.is<MatMul>() || op.is<ConvTranspose2D>(); }

/// The nodes of `group` (ascending) whose outputs are read outside it or are graph outputs.
template <class Set>
std::size_t escaping_nodes(Graph<Set> const& g, std::span<NodeId const> group) {
  std::size_t count = 0;
  for (NodeId n : group) {
    bool escapes = g.is_output(n);
    for (Use u : g.users(n)) escapes = escapes || !std::ranges::binary_search(group, u.node);
    count += escapes;
  }
  return count;
}

/// True when `reader` reads an output of `producer`.
template <class Set>
bool reads(Graph<Set> const& g, NodeId reader, NodeId producer) {
  return std::ranges::any_of(g[reader].inputs, [producer](Value v) { return v.node == producer; });
}

/// An elementwise chain's fusion rule, on every runtime's own-kernels backend: the group is
/// connected (each op reads or is read by another of the group) and one node's value leaves it.
template <class Set>
bool connected_with_one_result(Graph<Set> const& g, std::span<NodeId const> group) {
  for (NodeId n : group)
    if (group.size() > 1 && std::ranges::none_of(group, [&](NodeId m) { return reads(g, n, m) || reads(g, m, n); })) return false;
  return escaping_nodes(g, group) == 1;
}

}  // namespace autograph::placement
