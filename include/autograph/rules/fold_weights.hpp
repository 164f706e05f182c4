#pragma once
// fold_weight_transforms(): every weight transform whose inputs are weights with data becomes
// a weight holding the result (the reference kernel runs once), chains included.
//
// Searches rewrite with folding off: a candidate then costs its rewrite, not the evaluation
// of its weight transforms. Merging NasNet-A's parallel convolutions folds megabytes of
// enlarged, concatenated kernels per candidate, most of them thrown away; with folding during
// search the optimizer held 15 GB. The graph a search keeps is folded once, here.
//
// fold_with_reference() is the WeightFolder (rules/rewriter.hpp) that runs the reference CPU
// kernels. This is the one header of rules/ that includes kernels, and only those of the weight
// transforms (layout, elementwise, unary: no BLAS); the Rewriter gets the folder passed in
// RewriteOptions, so matching and rewriting build without the runtime.
#include <span>
#include <vector>

#include "autograph/graph/topological_order.hpp"
#include "autograph/rules/rewriter.hpp"
#if !defined(AUTOGRAPH_PRECOMPILED)
#include "autograph/rules/detail/reference_fold.hpp"
#endif

namespace autograph::rules {

/// The reference kernel of weight transform `op` on `in` (a WeightFolder).
/// @pre WeightTransformOps::holds(op) (the Rewriter asks only for those).
#if defined(AUTOGRAPH_PRECOMPILED)
// Compiled once in src/defaults/fold_with_reference.cpp: the visit over every transform's
// kernel costs ~2 s of CPU in each translation unit that folds.
std::vector<Tensor> fold_with_reference(AnyOp const& op, std::span<Tensor const> in, std::span<TensorDesc const> out);
#else
inline std::vector<Tensor> fold_with_reference(AnyOp const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) {
  return detail::reference_fold(op, in, out);
}
#endif

/// Folds `g` in place with `fold`; returns the number of transforms folded. Weights without
/// data keep their transforms (cost models see those as constants either way).
template <class Set>
std::size_t fold_weight_transforms(Graph<Set>& g, FoldCache* cache = nullptr, WeightFolder fold = fold_with_reference) {
  Graph<Set> out = g;  // edit a copy: a failure leaves g as it was
  Rewriter<Set> rw(out, {.fold = fold, .fold_cache = cache});
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
