#pragma once
// Our own CUDA kernels, as plain launch functions over descriptors (shapes, strides, pointers).
// This header is the whole interface between the host side and the .cu files in src/cuda/:
// it includes nothing of the library beyond errors, so the kernels compile quickly under
// nvcc, and the host side (graphs, ops, lowering) never needs nvcc.
//
// Every function enqueues on `stream` and checks the launch (CudaError naming the kernel);
// none synchronises, so all of them may be captured into a CUDA graph. Tensors are dense,
// row-major float32. Element counts and strides are in elements.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace autograph::cuda::kernels {

inline constexpr int max_rank = 8;

/// Unary maps; the order of the first fifteen is UnaryKind's (ops/unary.hpp).
enum class UnaryCode : int {
  relu, sigmoid, tanh, gelu, exp, log, sqrt, erf, neg, abs, reciprocal, leaky_relu, clip, hard_sigmoid, hard_swish,
  scale,  // y = x * alpha + beta
};
/// The order is BinaryKind's (ops/elementwise.hpp).
enum class BinaryCode : int { add, sub, mul, div, pow, max, min };
/// The order is Activation's (ops/activation.hpp).
enum class ActCode : int { none, relu, sigmoid, tanh, gelu };

/// y[i] = f(x[i]) for i < n. x == y is allowed (in place).
void unary(UnaryCode f, float alpha, float beta, float const* x, float* y, std::int64_t n, cudaStream_t stream);

/// The output's shape and, per operand, the strides that read it broadcast to that shape.
struct BroadcastLayout {
  int rank = 0;
  std::int64_t shape[max_rank] = {};
  std::int64_t a_stride[max_rank] = {};
  std::int64_t b_stride[max_rank] = {};
};
/// y = a (op) b over `layout` (y dense in the layout's shape).
void binary(BinaryCode op, BroadcastLayout const& layout, float const* a, float const* b, float* y, cudaStream_t stream);

/// dst[i . dst_stride] = src[i . src_stride] for every index i of `shape`.
struct StridedCopy {
  int rank = 0;
  std::int64_t shape[max_rank] = {};
  std::int64_t src_stride[max_rank] = {};
  std::int64_t dst_stride[max_rank] = {};
};
void copy_strided(StridedCopy const& c, float const* src, float* dst, cudaStream_t stream);

/// y (shape out_shape) = x (shape in_shape) placed at offset `before` per dimension, `value` elsewhere.
struct PadLayout {
  int rank = 0;
  std::int64_t in_shape[max_rank] = {};
  std::int64_t out_shape[max_rank] = {};
  std::int64_t before[max_rank] = {};
};
void pad(PadLayout const& p, float value, float const* x, float* y, cudaStream_t stream);

/// y[o][c][i] = act(y[o][c][i] + bias[c]) in place, y of shape [outer, channels, inner]; bias may be null.
void bias_activation(float* y, std::int64_t outer, std::int64_t channels, std::int64_t inner, float const* bias, ActCode act,
                     cudaStream_t stream);

/// y[n][m][i][j] = (full[n][m][i + top][j + left] where inside full, else 0) + bias[m] (bias may be null).
/// The epilogue of a transposed convolution computed uncropped.
struct CropLayout {
  std::int64_t planes_n = 0, channels = 0;  // N and M
  std::int64_t full_h = 0, full_w = 0, out_h = 0, out_w = 0, top = 0, left = 0;
};
void crop_bias(CropLayout const& c, float const* full, float const* bias, float* y, cudaStream_t stream);

/// y = (x - mean[c]) * (scale[c] / sqrt(var[c] + epsilon)) + bias[c], x of shape [n, channels, inner].
void batch_norm(std::int64_t n, std::int64_t channels, std::int64_t inner, float epsilon, float const* x, float const* scale,
                float const* bias, float const* mean, float const* var, float* y, cudaStream_t stream);

/// Each row of x[rows, len]: y = (x - mean) / sqrt(var + epsilon) * gamma + beta (biased variance).
void layer_norm(std::int64_t rows, std::int64_t len, float epsilon, float const* x, float const* gamma, float const* beta, float* y,
                cudaStream_t stream);

/// AddLayerNorm in one pass over each row (a block per row): s = a + b read through `layout`
/// (the broadcast of a and b to the sum's shape, rows of `len` elements), then
/// y = (s - mean) / sqrt(var + epsilon) * gamma + beta per row, as layer_norm. `sum`, when not
/// null, receives s as well (AddLayerNorm's keep_sum).
void add_layer_norm(BroadcastLayout const& layout, std::int64_t len, float epsilon, float const* a, float const* b, float const* gamma,
                    float const* beta, float* y, float* sum, cudaStream_t stream);

/// FusedAttention: out = softmax(scale * q kT [+ mask]) v per batch matrix, with the scores
/// kept on chip (attention_tiles.hpp). q [batch..., tq, d], kT [batch..., d, tk],
/// v [batch..., tk, dv], out dense [batch..., tq, dv]; each operand's offset for a batch index
/// is index . its stride (0 where it broadcasts). The mask, when not null, is read at
/// mask_offset(batch) + row * mask_row + key * mask_col (0 where it broadcasts).
/// @pre d, dv <= attention::max_head_dim; tk > 0 (no keys: the caller fills zeros)
struct AttentionLayout {
  int batch_rank = 0;
  std::int64_t batch_shape[max_rank] = {};
  std::int64_t q_stride[max_rank] = {};
  std::int64_t k_stride[max_rank] = {};
  std::int64_t v_stride[max_rank] = {};
  std::int64_t mask_stride[max_rank] = {};
  std::int64_t tq = 0, tk = 0, d = 0, dv = 0;
  std::int64_t mask_row = 0, mask_col = 0;
  float scale = 1.f;
};
void fused_attention(AttentionLayout const& layout, float const* q, float const* kT, float const* v, float const* mask, float* out,
                     cudaStream_t stream);

/// Softmax of x viewed as [outer, n, inner] along n.
void softmax(std::int64_t outer, std::int64_t n, std::int64_t inner, float const* x, float* y, cudaStream_t stream);

/// Sum or mean: y[k] over the kept index k (its input offset: k . kept_stride) of the reduced
/// sub-block (offsets r . reduced_stride). count = product of the reduced shape.
struct ReduceLayout {
  int kept_rank = 0;
  std::int64_t kept_shape[max_rank] = {};
  std::int64_t kept_stride[max_rank] = {};
  int reduced_rank = 0;
  std::int64_t reduced_shape[max_rank] = {};
  std::int64_t reduced_stride[max_rank] = {};
};
void reduce(ReduceLayout const& r, bool mean, float const* x, float* y, cudaStream_t stream);

/// Pool2D over planes of x[planes, h, w] into y[planes, out_h, out_w] (see runtime/cpu/pool2d.hpp
/// for the window and divisor rules, which this follows exactly).
struct PoolLayout {
  std::int64_t planes = 0, h = 0, w = 0, out_h = 0, out_w = 0;
  std::int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  std::int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool max = true;
  bool count_include_pad = false;
};
void pool2d(PoolLayout const& p, float const* x, float* y, cudaStream_t stream);

/// One tap of a separable resize filter: input position and weight. index < 0 marks an output
/// position that maps outside the input (tf_crop_and_resize: it gets the extrapolation value).
struct ResizeTap {
  std::int32_t index;
  float weight;
};
/// y[o] = sum over the taps of every resized axis of (product of tap weights) * x[tap indices].
/// Axis d is resized when taps[d] > 0: output position j reads table[first[d] + j * taps[d] + k], k < taps[d];
/// otherwise it is read at the output index unchanged.
struct ResizeLayout {
  int rank = 0;
  std::int64_t in_shape[max_rank] = {};
  std::int64_t out_shape[max_rank] = {};
  std::int32_t taps[max_rank] = {};
  std::int64_t first[max_rank] = {};
  float extrapolation_value = 0.f;
};
void resize(ResizeLayout const& r, ResizeTap const* table, float const* x, float* y, cudaStream_t stream);

/// A direct depthwise convolution (OwnCudaKernels, cuda/backends/own_kernels.hpp): groups =
/// input channels, `multiplier` output channels per input channel (weight [C * multiplier, 1,
/// kernel_h, kernel_w]), y = act(conv(x, w) + bias) with any padding, stride and dilation, one
/// thread per output element (PyTorch's conv_depthwise2d_forward_kernel does the same for the
/// batch-1 depthwise convolutions it keeps away from cuDNN). bias may be null.
struct DepthwiseLayout {
  std::int64_t n = 0, channels = 0, multiplier = 1, h = 0, w = 0, out_h = 0, out_w = 0;
  std::int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::int64_t pad_top = 0, pad_left = 0;
  ActCode act = ActCode::none;
};
void depthwise_conv2d(DepthwiseLayout const& d, float const* x, float const* w, float const* bias, float* y, cudaStream_t stream);

/// An elementwise chain in one pass (OwnCudaKernels): each element of the output is computed
/// from the same element of every per-element input through `steps` steps, each writing one
/// slot (slots: the inputs first, then one per step), so the intermediate tensors never reach
/// memory. A batch-norm step reads per-channel inputs (scale, bias, mean, var) at the element's
/// channel, (i / inner) % channels, the formula of the batch_norm kernel.
inline constexpr int max_chain_inputs = 12;
inline constexpr int max_chain_steps = 8;
struct ChainStep {
  enum class Kind : int { unary, binary, batch_norm } kind = Kind::unary;
  int code = 0;               // UnaryCode (scale included) or BinaryCode
  float alpha = 0, beta = 0;  // unary parameters; batch norm: alpha is epsilon
  int a = 0, b = 0;           // operand slots
  int params[4] = {};         // batch norm: the input indices of scale, bias, mean, var
};
struct ChainProgram {
  int inputs = 0, steps = 0;
  bool per_channel[max_chain_inputs] = {};  // inputs read per channel (batch-norm parameters), not per element
  ChainStep step[max_chain_steps] = {};
  std::int64_t n = 0, channels = 1, inner = 1;  // elements; the layout per-channel inputs are read in
};
struct ChainInputs {
  float const* ptr[max_chain_inputs] = {};
};
/// y[i] = the last step's slot, for i < n.
void elementwise_chain(ChainProgram const& p, ChainInputs const& in, float* y, cudaStream_t stream);

/// y[i] = value for i < n.
void fill(float* y, std::int64_t n, float value, cudaStream_t stream);

}  // namespace autograph::cuda::kernels
