#pragma once
// A FusedAttention node as a problem of the tiled attention kernel (cpu/tuned/attention.hpp):
// what both the CPU runtime's kernel and `autograph tune` compute from the node's inputs, so
// that the configuration tuned for a shape is the one the runtime looks up.
#include <optional>
#include <span>
#include <string>

#include "autograph/core/tensor_desc.hpp"
#include "autograph/cpu/tuned/attention.hpp"
#include "autograph/ops/fused_attention.hpp"

namespace autograph::cpu::tuned {

struct FusedAttentionProblem {
  std::optional<AttentionProblem> problem;
  std::string why_not;  // when problem is empty: what the kernel cannot read
};

/// The kernel's problem for q [L..., Tq, D], kT [L..., D, Tk], v [L..., Tk, Dv] and an optional
/// mask broadcastable to [L..., Tq, Tk]. The kernel reads q, kT and v densely over one batch
/// index, so their leading dims L must all be the output's (no broadcasting between them); a
/// mask's leading dims must split into an outer and an inner group, each either broadcast or
/// laid out densely (a [B, 1, Tq, Tk] padding mask over [B, H] heads, a [Tq, Tk] causal mask).
FusedAttentionProblem attention_problem_of(FusedAttention const& op, std::span<TensorDesc const> inputs);

}  // namespace autograph::cpu::tuned
