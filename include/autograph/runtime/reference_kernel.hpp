#pragma once
// The extension point for the reference executor: an op is ReferenceExecutable when
// reference::Kernel<Op> is specialised (the built-in ops, runtime/cpu/) or when the op has an
// `evaluate(inputs, output_descs)` member (convenient for user ops).
#include <span>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/ops/operator.hpp"

namespace autograph {
namespace reference {

/// Specialise with: std::vector<Tensor> operator()(Op const&, std::span<Tensor const> in,
/// std::span<TensorDesc const> out) const;
template <class Op>
struct Kernel;

}  // namespace reference

template <class Op>
concept ReferenceExecutable =
    Operator<Op> &&
    (is_source_op<Op> ||
     requires(Op const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) {
       { reference::Kernel<Op>{}(op, in, out) } -> std::same_as<std::vector<Tensor>>;
     } ||
     requires(Op const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) {
       { op.evaluate(in, out) } -> std::same_as<std::vector<Tensor>>;
     });

namespace reference {
template <class Op>
std::vector<Tensor> evaluate(Op const& op, std::span<Tensor const> in, std::span<TensorDesc const> out) {
  if constexpr (requires { Kernel<Op>{}(op, in, out); })
    return Kernel<Op>{}(op, in, out);
  else
    return op.evaluate(in, out);
}
}  // namespace reference
}  // namespace autograph
