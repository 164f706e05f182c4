// rules::fold_with_reference(), compiled once (see reference_executor.cpp for how these files
// work; this one is a plain function, declared without a body in rules/fold_weights.hpp).
#include <autograph/rules/detail/reference_fold.hpp>
#include <autograph/rules/fold_weights.hpp>

namespace autograph::rules {

std::vector<Tensor> fold_with_reference(AnyOp const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) {
  return detail::reference_fold(op, in, out);
}

}  // namespace autograph::rules
