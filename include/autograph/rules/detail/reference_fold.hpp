#pragma once
// The body of rules::fold_with_reference() (rules/fold_weights.hpp): the reference CPU kernel
// of a weight transform. Apart so that programs linking autograph::defaults compile it once
// (src/defaults/fold_with_reference.cpp) and header-only users inline it.
#include <span>
#include <vector>

#include "autograph/rules/rewriter.hpp"
#include "autograph/runtime/cpu/elementwise.hpp"
#include "autograph/runtime/cpu/layout.hpp"
#include "autograph/runtime/cpu/unary.hpp"

namespace autograph::rules::detail {

/// @pre WeightTransformOps::holds(op).
inline std::vector<Tensor> reference_fold(AnyOp const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) {
  return visit_op<WeightTransformOps>(op, [&](auto const& o) { return reference::evaluate(o, in, out); });
}

}  // namespace autograph::rules::detail
