#pragma once
// fold_weight_transforms(): every weight transform whose inputs are weights with data becomes
// a weight holding the result (the reference kernel runs once), chains included.
//
// Searches rewrite with folding off: a candidate then costs its rewrite, not the evaluation
// of its weight transforms. Merging NasNet-A's parallel convolutions folds megabytes of
// enlarged, concatenated kernels per candidate, most of them thrown away; with folding during
// search the optimizer held 15 GB. The graph a search keeps is folded once, here.
#include <vector>

#include "autograph/graph/topological_order.hpp"
#include "autograph/rules/rewriter.hpp"

namespace autograph::rules {

/// Folds `g` in place; returns the number of transforms folded. Weights without data keep
/// their transforms (cost models see those as constants either way).
template <class Set>
std::size_t fold_weight_transforms(Graph<Set>& g, FoldCache* cache = nullptr) {
  Graph<Set> out = g;  // edit a copy: a failure leaves g as it was
  Rewriter<Set> rw(out, cache);
  std::size_t folded = 0;
  for (NodeId id : topological_order(g)) {  // producers first, so chains fold link by link
    if (!out.contains(id) || !WeightTransformOps::holds(out[id].op) || out[id].inputs.empty()) continue;
    bool all_data = true;
    for (Value v : out[id].inputs) {
      auto const* w = out[v.node].op.template get_if<Weight>();
      all_data = all_data && w && w->data;
    }
    if (!all_data) continue;
    auto const node = out[id];  // copy: adding nodes may move it
    std::size_t before = rw.changes().folded;
    auto values = rw.add_multi(node.op, std::span<Value const>(node.inputs), node.name);
    if (rw.changes().folded == before) continue;
    for (std::size_t p = 0; p < values.size(); ++p) rw.replace_uses(Value{id, static_cast<std::uint32_t>(p)}, values[p]);
    NodeId dead[] = {id};
    rw.erase_dead(dead);
    ++folded;
  }
  g = std::move(out);
  return folded;
}

}  // namespace autograph::rules
