#pragma once
// The OpCostModel concept: what one kernel costs on a device, given its operator and its
// input and output descriptors.
//
//   struct MyModel {
//     KernelCost estimate(AnyOp const& op, std::span<TensorDesc const> in, std::span<TensorDesc const> out) const;
//     std::string describe() const;   // "roofline, H100 SXM" — reports say where numbers came from
//   };
//
// A model is asked about the same signature (operator + attributes + input descriptors)
// over and over during a search; the built-in models compute each signature once
// (detail::SignatureCache) and share the memo between copies.
#include <concepts>
#include <span>
#include <string>

#include "autograph/core/tensor_desc.hpp"
#include "autograph/ops/any_op.hpp"
#include "autograph/ops/split.hpp"

namespace autograph {

/// What one kernel costs when it runs alone on the device.
struct KernelCost {
  double us = 0;          // standalone time, microseconds (includes latency_us)
  double fill = 0;        // fraction of the device's SMs it occupies while it runs, in (0, 1]
  double latency_us = 0;  // the part of `us` that holds no SMs (launch, ramp-up, drain)
  double bandwidth = 0;   // fraction of the device's DRAM bandwidth it draws while it works (0: not modelled)
  friend bool operator==(KernelCost const&, KernelCost const&) = default;
};

template <class M>
concept OpCostModel = std::copy_constructible<M> &&
                      requires(M const& m, AnyOp const& op, std::span<TensorDesc const> in, std::span<TensorDesc const> out) {
                        { m.estimate(op, in, out) } -> std::same_as<KernelCost>;
                        { m.describe() } -> std::convertible_to<std::string>;
                      };

/// Microseconds of one kernel: the number cost policies add up.
template <OpCostModel M>
double op_cost_us(M const& m, AnyOp const& op, std::span<TensorDesc const> in, std::span<TensorDesc const> out) {
  return m.estimate(op, in, out).us;
}

/// True for a Split whose pieces are contiguous ranges of its input (every dimension before
/// the axis is 1, as for channels at batch 1): each output is a view, nothing is copied.
inline bool is_contiguous_split(AnyOp const& op, std::span<TensorDesc const> in) {
  auto const* split = op.get_if<Split>();
  if (!split || in.size() != 1) return false;
  std::size_t axis = in[0].shape.normalize_axis(split->axis);
  for (std::size_t d = 0; d < axis; ++d)
    if (in[0].shape[d] != 1) return false;
  return true;
}

/// True when there are outputs and none has an element: there is nothing to compute or write.
inline bool writes_nothing(std::span<TensorDesc const> out) {
  for (TensorDesc const& d : out)
    if (d.numel() != 0) return false;
  return !out.empty();
}

/// An op that runs no kernel: a source (Input, Weight), a view that moves no bytes and
/// computes nothing (Reshape), a contiguous Split, or an op whose outputs are all empty (a
/// zero-size dimension, e.g. batch 0: frameworks skip the launch, and CUDA rejects an empty
/// grid), which costs nothing. Constant folding is a graph property: see inference_kernels.hpp.
inline bool runs_kernel(AnyOp const& op, std::span<TensorDesc const> in, std::span<TensorDesc const> out) {
  return !op.is_source() && !writes_nothing(out) && (op.flops(in, out) != 0 || op.bytes(in, out) != 0) && !is_contiguous_split(op, in);
}

}  // namespace autograph
