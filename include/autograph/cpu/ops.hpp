#pragma once
// The CPU kernels of the built-in operators, compiled once into the autograph_cpu library
// (src/cpu/): oneDNN primitives wherever oneDNN has the operator — convolution (with bias and
// the fused activation as post-ops), deconvolution, matmul, pooling, eltwise, binary,
// softmax, layer normalisation, reduction, and reorders for the data movement ops
// (Concat, Split, Transpose, Slice, Pad, Enlarge) — and our own loops where oneDNN has nothing
// that computes what the reference kernels compute (Pow, Erf, Reciprocal, binaries that
// broadcast both operands or the first of Sub/Div, Resize, ceil-mode average pooling that
// counts the padding past the end), and BatchNorm, our per-channel affine loop in any layout
// (oneDNN 2.6.3 runs a channels-last one in generic C++ unless C is a multiple of 8). AddLayerNorm is oneDNN's binary add then its layer
// normalisation; Conv2DEpilogue and MatMulEpilogue one oneDNN primitive with post-ops.
// FusedAttention is our tiled kernel (cpu/tuned/attention.hpp) in the
// configuration tuned for the shape on this CPU, when a tuning log is in use
// (cpu/tuned/tuning_source.hpp), else in its default. Identity and Reshape copy, unless the runtime gave the
// output the input's buffer. Every kernel matches its op's reference kernel (runtime/cpu/) to
// float32 rounding.
#include <span>

#include "autograph/cpu/kernel.hpp"
#include "autograph/ops/builtin.hpp"

namespace autograph::cpu {

namespace builtin {
/// Which layouts Conv2D and ConvTranspose2D compute in: by default the faster of the tensors'
/// own (plain) layouts and oneDNN's blocked ones with reorders around, timed once per
/// signature and thread count in the process; tests and profiles may force one (process-wide,
/// for the nodes prepared afterwards). A forced layout oneDNN has no JIT kernel for falls
/// back to the other.
enum class ConvLayout : std::uint8_t { measured, plain, blocked };
void set_conv_layout(ConvLayout layout);

void prepare(Conv2D const& op, Preparation& p);
void prepare(ConvTranspose2D const& op, Preparation& p);
void prepare(MatMul const& op, Preparation& p);
void prepare(Pool2D const& op, Preparation& p);
void prepare_binary(BinaryKind kind, Preparation& p);
void prepare_unary(UnaryKind kind, float alpha, float beta, Preparation& p);
void prepare(Scale const& op, Preparation& p);
void prepare(Identity const& op, Preparation& p);
void prepare(BatchNorm const& op, Preparation& p);
void prepare(LayerNorm const& op, Preparation& p);
void prepare(Softmax const& op, Preparation& p);
void prepare(Concat const& op, Preparation& p);
void prepare(Split const& op, Preparation& p);
void prepare(Reshape const& op, Preparation& p);
void prepare(Transpose const& op, Preparation& p);
void prepare(Slice const& op, Preparation& p);
void prepare(Pad const& op, Preparation& p);
void prepare(Enlarge const& op, Preparation& p);
void prepare(Reduce const& op, Preparation& p);
void prepare(Resize const& op, Preparation& p);
void prepare(FusedAttention const& op, Preparation& p);
void prepare(AddLayerNorm const& op, Preparation& p);
/// One oneDNN convolution / matmul whose post-ops run the chain (binary add/mul reading the
/// operands, eltwise for activations and scales); a convolution with operands keeps x and y in
/// the tensors' own layouts (channels-last in a CNN), which the operands share.
void prepare(Conv2DEpilogue const& op, Preparation& p);
void prepare(MatMulEpilogue const& op, Preparation& p);

/// Which ops compute on channels-last 4-D tensors without a reorder (Layout): a convolution
/// (its data input: weights and bias are constants the primitive lays out once), pooling,
/// batch normalisation, oneDNN's eltwise unaries, binaries of same-shape operands, and
/// Concat (a strided copy). Our own loops (Erf, Reciprocal, Pow, broadcasts, ceil-mode average
/// pooling past the padding) and everything else read plain.
template <class Op>
bool takes_channels_last(Op const&, std::span<TensorDesc const>, std::size_t) {
  return false;
}
inline bool takes_channels_last(Conv2D const&, std::span<TensorDesc const>, std::size_t i) { return i == 0; }
/// The data input and the chain's operands (read by binary post-ops in the output's layout).
inline bool takes_channels_last(Conv2DEpilogue const& op, std::span<TensorDesc const>, std::size_t i) {
  return i == 0 || i >= op.producer_inputs();
}
inline bool takes_channels_last(ConvTranspose2D const&, std::span<TensorDesc const>, std::size_t i) { return i == 0; }
inline bool takes_channels_last(Pool2D const& op, std::span<TensorDesc const>, std::size_t i) {
  return i == 0 && !(op.kind == PoolKind::avg && op.count_include_pad && op.ceil_mode);  // (only ceil mode runs past the padding)
}
inline bool takes_channels_last(BatchNorm const&, std::span<TensorDesc const>, std::size_t i) { return i == 0; }
inline bool takes_channels_last(Concat const&, std::span<TensorDesc const>, std::size_t) { return true; }
inline bool takes_channels_last(Scale const&, std::span<TensorDesc const>, std::size_t) { return true; }
template <UnaryKind K>
bool takes_channels_last(Unary<K> const&, std::span<TensorDesc const>, std::size_t) {
  return K != UnaryKind::erf && K != UnaryKind::reciprocal;
}
template <BinaryKind K>
bool takes_channels_last(Binary<K> const&, std::span<TensorDesc const> in, std::size_t) {
  return K != BinaryKind::pow && in.size() == 2 && in[0].shape == in[1].shape;
}

template <BinaryKind K>
void prepare(Binary<K> const&, Preparation& p) {
  prepare_binary(K, p);
}
template <UnaryKind K>
void prepare(Unary<K> const& op, Preparation& p) {
  prepare_unary(K, op.alpha, op.beta, p);
}
}  // namespace builtin

/// Every built-in operator that runs (sources have no kernel: inputs and weights are bound).
template <class Op>
  requires(BuiltinOps::contains<Op> && !is_source_op<Op>)
struct Kernel<Op> {
  static void prepare(Op const& op, Preparation& p) { builtin::prepare(op, p); }
  static bool takes_channels_last(Op const& op, std::span<TensorDesc const> in, std::size_t i) { return builtin::takes_channels_last(op, in, i); }
  /// Every op that takes its first input channels-last also writes its outputs that way.
  static bool gives_channels_last(Op const& op, std::span<TensorDesc const> in) { return !in.empty() && builtin::takes_channels_last(op, in, 0); }
};

}  // namespace autograph::cpu
