#pragma once
// The CUDA kernels of the built-in operators. Their lowerings are compiled once into the
// autograph_cuda library (src/cuda/lower_ops.cpp): convolutions through cuDNN (the algorithm
// chosen by measurement once per device and signature), matrix products through cuBLASLt
// (strided batched, TF32 when allowed), everything else through our kernels
// (autograph/cuda/kernels.hpp). Views where the layout allows: Reshape, Identity, Split and
// Slice of contiguous ranges; Concat writes its inputs in place when its producers can.
#include <span>

#include "autograph/cuda/kernel.hpp"
#include "autograph/ops/builtin.hpp"

namespace autograph::cuda {

namespace builtin {
void lower(Conv2D const& op, Lowering& l);
void lower(ConvTranspose2D const& op, Lowering& l);
void lower(MatMul const& op, Lowering& l);
void lower(Pool2D const& op, Lowering& l);
void lower_binary(BinaryKind kind, Lowering& l);
void lower_unary(UnaryKind kind, float alpha, float beta, Lowering& l);
void lower(Scale const& op, Lowering& l);
void lower(Identity const& op, Lowering& l);
void lower(BatchNorm const& op, Lowering& l);
void lower(LayerNorm const& op, Lowering& l);
void lower(Softmax const& op, Lowering& l);
void lower(Concat const& op, Lowering& l);
void lower(Split const& op, Lowering& l);
void lower(Reshape const& op, Lowering& l);
void lower(Transpose const& op, Lowering& l);
void lower(Slice const& op, Lowering& l);
void lower(Pad const& op, Lowering& l);
void lower(Enlarge const& op, Lowering& l);
void lower(Reduce const& op, Lowering& l);
void lower(Resize const& op, Lowering& l);
/// One add_layer_norm kernel (a block per row): the sum formed once, written to output 1 only
/// when kept, never read back from memory.
void lower(AddLayerNorm const& op, Lowering& l);
/// The producer's kernels, then the chain's steps as in-place elementwise kernels on its
/// output (one pass each: the chain is fused on the CPU runtime, not yet on the GPU).
void lower(Conv2DEpilogue const& op, Lowering& l);
void lower(MatMulEpilogue const& op, Lowering& l);
/// One fused_attention kernel (attention_tiles.hpp): the scores never reach global memory.
/// @throws CudaError (reject) for a head dimension above attention::max_head_dim.
void lower(FusedAttention const& op, Lowering& l);

template <BinaryKind K>
void lower(Binary<K> const&, Lowering& l) {
  lower_binary(K, l);
}
template <UnaryKind K>
void lower(Unary<K> const& op, Lowering& l) {
  lower_unary(K, op.alpha, op.beta, l);
}
}  // namespace builtin

/// Whether producers can write every input of `op` (of descriptors `in`) straight into its
/// output, leaving the Concat no copy: along an axis with nothing but 1s before it, each
/// input is one contiguous range of the output, placed when its offset keeps the alignment
/// the producer needs; checked here against the strictest, 256 bytes (cuDNN's), so that it
/// holds for any producer. Inside a model a piece is still copied when it is a graph input,
/// a view, or placed into another Concat already (see LoweringBuilder::finish).
bool concat_in_place(Concat const& op, std::span<TensorDesc const> in);

/// Every built-in operator that runs (sources have no kernel: inputs are bound, weights uploaded).
template <class Op>
  requires(BuiltinOps::contains<Op> && !is_source_op<Op>)
struct Kernel<Op> {
  static void lower(Op const& op, Lowering& l) { builtin::lower(op, l); }
};

}  // namespace autograph::cuda
