// Elementwise kernels: unary maps, broadcast binary ops, bias + activation, batch norm, fill.
// The maps follow the reference kernels' formulas (ops/unary.hpp, ops/elementwise.hpp) with
// the IEEE-rounded float functions (no fast-math), so results differ from the CPU only in
// the last bits of the transcendental functions.
#include <cuda_runtime.h>

#include "common.cuh"

namespace autograph::cuda::kernels {
namespace {

using detail::blocks_for;
using detail::block_threads;

template <UnaryCode F>
__device__ __forceinline__ float unary_op(float x, float alpha, float beta) {
  if constexpr (F == UnaryCode::relu) return x > 0.f ? x : 0.f;
  else if constexpr (F == UnaryCode::sigmoid) return 1.f / (1.f + expf(-x));
  else if constexpr (F == UnaryCode::tanh) return tanhf(x);
  else if constexpr (F == UnaryCode::gelu) return 0.5f * x * (1.f + erff(x * 0.70710678118654752f));
  else if constexpr (F == UnaryCode::exp) return expf(x);
  else if constexpr (F == UnaryCode::log) return logf(x);
  else if constexpr (F == UnaryCode::sqrt) return sqrtf(x);
  else if constexpr (F == UnaryCode::erf) return erff(x);
  else if constexpr (F == UnaryCode::neg) return -x;
  else if constexpr (F == UnaryCode::abs) return fabsf(x);
  else if constexpr (F == UnaryCode::reciprocal) return 1.f / x;
  else if constexpr (F == UnaryCode::leaky_relu) return x >= 0.f ? x : alpha * x;
  else if constexpr (F == UnaryCode::clip) return fminf(fmaxf(x, alpha), beta);
  else if constexpr (F == UnaryCode::hard_sigmoid) return fmaxf(0.f, fminf(1.f, alpha * x + beta));
  else if constexpr (F == UnaryCode::hard_swish) return x * fmaxf(0.f, fminf(1.f, x / 6.f + 0.5f));
  else return x * alpha + beta;  // scale
}

// x may equal y (in place): no __restrict__.
template <UnaryCode F>
__global__ void unary_kernel(float const* x, float* y, std::int64_t n, float alpha, float beta) {
  for (std::int64_t i = detail::global_index(); i < n; i += detail::grid_stride())
    y[i] = unary_op<F>(x[i], alpha, beta);
}
template <UnaryCode F>
__global__ void unary_kernel4(float4 const* x, float4* y, std::int64_t n4, float alpha, float beta) {
  for (std::int64_t i = detail::global_index(); i < n4; i += detail::grid_stride()) {
    float4 v = x[i];
    y[i] = make_float4(unary_op<F>(v.x, alpha, beta), unary_op<F>(v.y, alpha, beta), unary_op<F>(v.z, alpha, beta),
                       unary_op<F>(v.w, alpha, beta));
  }
}

bool aligned16(void const* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <UnaryCode F>
void launch_unary(float alpha, float beta, float const* x, float* y, std::int64_t n, cudaStream_t s) {
  if (n % 4 == 0 && aligned16(x) && aligned16(y)) {
    unary_kernel4<F><<<blocks_for(n / 4), block_threads, 0, s>>>(reinterpret_cast<float4 const*>(x), reinterpret_cast<float4*>(y), n / 4,
                                                                  alpha, beta);
  } else {
    unary_kernel<F><<<blocks_for(n), block_threads, 0, s>>>(x, y, n, alpha, beta);
  }
  check_launch("unary kernel");
}

template <BinaryCode Op>
__device__ __forceinline__ float binary_op(float a, float b) {
  if constexpr (Op == BinaryCode::add) return a + b;
  else if constexpr (Op == BinaryCode::sub) return a - b;
  else if constexpr (Op == BinaryCode::mul) return a * b;
  else if constexpr (Op == BinaryCode::div) return a / b;
  else if constexpr (Op == BinaryCode::pow) return powf(a, b);
  else if constexpr (Op == BinaryCode::max) return a > b ? a : b;
  else return a < b ? a : b;
}

template <BinaryCode Op>
__global__ void binary_flat(float const* __restrict__ a, float const* __restrict__ b, float* __restrict__ y, std::int64_t n) {
  for (std::int64_t i = detail::global_index(); i < n; i += detail::grid_stride())
    y[i] = binary_op<Op>(a[i], b[i]);
}
template <BinaryCode Op>
__global__ void binary_flat4(float4 const* __restrict__ a, float4 const* __restrict__ b, float4* __restrict__ y, std::int64_t n4) {
  for (std::int64_t i = detail::global_index(); i < n4; i += detail::grid_stride()) {
    float4 u = a[i], v = b[i];
    y[i] = make_float4(binary_op<Op>(u.x, v.x), binary_op<Op>(u.y, v.y), binary_op<Op>(u.z, v.z), binary_op<Op>(u.w, v.w));
  }
}
// The general case: decompose the output index, dimension by dimension from the back, in
// I (32-bit when every offset fits; the loop index itself is always 64-bit).
template <BinaryCode Op, class I>
__global__ void binary_general(BroadcastLayout l, float const* __restrict__ a, float const* __restrict__ b, float* __restrict__ y, std::int64_t n) {
  for (std::int64_t i = detail::global_index(); i < n; i += detail::grid_stride()) {
    I rem = static_cast<I>(i), oa = 0, ob = 0;
#pragma unroll
    for (int d = max_rank - 1; d >= 0; --d) {
      if (d >= l.rank) continue;
      I dim = static_cast<I>(l.shape[d]);
      I idx = rem % dim;
      rem /= dim;
      oa += idx * static_cast<I>(l.a_stride[d]);
      ob += idx * static_cast<I>(l.b_stride[d]);
    }
    y[i] = binary_op<Op>(a[oa], b[ob]);
  }
}

template <BinaryCode Op>
void launch_binary(BroadcastLayout const& l, float const* a, float const* b, float* y, cudaStream_t s) {
  std::int64_t n = 1;
  bool dense = true;  // both operands read with the output's own strides
  std::int64_t expect = 1;
  for (int d = l.rank - 1; d >= 0; --d) {
    n *= l.shape[d];
    dense = dense && (l.shape[d] == 1 || (l.a_stride[d] == expect && l.b_stride[d] == expect));
    expect *= l.shape[d];
  }
  if (n == 0) return;
  if (dense) {
    if (n % 4 == 0 && aligned16(a) && aligned16(b) && aligned16(y))
      binary_flat4<Op><<<blocks_for(n / 4), block_threads, 0, s>>>(reinterpret_cast<float4 const*>(a), reinterpret_cast<float4 const*>(b),
                                                                    reinterpret_cast<float4*>(y), n / 4);
    else
      binary_flat<Op><<<blocks_for(n), block_threads, 0, s>>>(a, b, y, n);
  } else if (detail::fits_int32(n)) {
    binary_general<Op, std::int32_t><<<blocks_for(n), block_threads, 0, s>>>(l, a, b, y, n);
  } else {
    binary_general<Op, std::int64_t><<<blocks_for(n), block_threads, 0, s>>>(l, a, b, y, n);
  }
  check_launch("binary kernel");
}

template <ActCode A>
__device__ __forceinline__ float activate(float x) {
  if constexpr (A == ActCode::relu) return x > 0.f ? x : 0.f;
  else if constexpr (A == ActCode::sigmoid) return 1.f / (1.f + expf(-x));
  else if constexpr (A == ActCode::tanh) return tanhf(x);
  else if constexpr (A == ActCode::gelu) return 0.5f * x * (1.f + erff(x * 0.70710678118654752f));  // exact (erf) GELU
  else return x;
}

/// y of shape [planes / channels, channels, inner]; grid: geometry::plane_grid. The channel is
/// found once per plane (block row), the items of a plane index in `Index` (32 bits where
/// geometry::plane_fits_int32): no 64-bit division per item.
template <ActCode A, class Index>
__global__ void bias_activation_kernel(float* y, std::int64_t planes, std::int64_t channels, Index inner, float const* __restrict__ bias) {
  Index const first = static_cast<Index>(blockIdx.x) * static_cast<Index>(blockDim.x) + static_cast<Index>(threadIdx.x);
  Index const stride = static_cast<Index>(gridDim.x) * static_cast<Index>(blockDim.x);
  for (std::int64_t plane = blockIdx.y; plane < planes; plane += gridDim.y) {
    float const b = bias ? bias[plane % channels] : 0.f;
    float* p = y + plane * static_cast<std::int64_t>(inner);
    for (Index i = first; i < inner; i += stride) p[i] = activate<A>(p[i] + b);
  }
}

template <ActCode A>
void launch_bias_activation(float* y, std::int64_t planes, std::int64_t channels, std::int64_t inner, float const* bias, cudaStream_t s) {
  geometry::PlaneGrid g = geometry::plane_grid(planes, inner);
  dim3 grid(g.x, g.y);
  if (geometry::plane_fits_int32(inner, g))
    bias_activation_kernel<A, std::int32_t><<<grid, block_threads, 0, s>>>(y, planes, channels, static_cast<std::int32_t>(inner), bias);
  else
    bias_activation_kernel<A, std::int64_t><<<grid, block_threads, 0, s>>>(y, planes, channels, inner, bias);
}

__global__ void batch_norm_kernel(std::int64_t total, std::int64_t channels, std::int64_t inner, float epsilon, float const* __restrict__ x,
                                  float const* __restrict__ scale, float const* __restrict__ bias, float const* __restrict__ mean,
                                  float const* __restrict__ var, float* __restrict__ y) {
  for (std::int64_t i = detail::global_index(); i < total; i += detail::grid_stride()) {
    std::int64_t c = (i / inner) % channels;
    float a = scale[c] / sqrtf(var[c] + epsilon);
    y[i] = (x[i] - mean[c]) * a + bias[c];
  }
}

__global__ void fill_kernel(float* y, std::int64_t n, float value) {
  for (std::int64_t i = detail::global_index(); i < n; i += detail::grid_stride()) y[i] = value;
}

}  // namespace

void unary(UnaryCode f, float alpha, float beta, float const* x, float* y, std::int64_t n, cudaStream_t s) {
  if (n == 0) return;
  switch (f) {
#define AUTOGRAPH_UNARY_CASE(code) \
  case UnaryCode::code: return launch_unary<UnaryCode::code>(alpha, beta, x, y, n, s);
    AUTOGRAPH_UNARY_CASE(relu)
    AUTOGRAPH_UNARY_CASE(sigmoid)
    AUTOGRAPH_UNARY_CASE(tanh)
    AUTOGRAPH_UNARY_CASE(gelu)
    AUTOGRAPH_UNARY_CASE(exp)
    AUTOGRAPH_UNARY_CASE(log)
    AUTOGRAPH_UNARY_CASE(sqrt)
    AUTOGRAPH_UNARY_CASE(erf)
    AUTOGRAPH_UNARY_CASE(neg)
    AUTOGRAPH_UNARY_CASE(abs)
    AUTOGRAPH_UNARY_CASE(reciprocal)
    AUTOGRAPH_UNARY_CASE(leaky_relu)
    AUTOGRAPH_UNARY_CASE(clip)
    AUTOGRAPH_UNARY_CASE(hard_sigmoid)
    AUTOGRAPH_UNARY_CASE(hard_swish)
    AUTOGRAPH_UNARY_CASE(scale)
#undef AUTOGRAPH_UNARY_CASE
  }
  throw CudaError("unary kernel: unknown function code " + std::to_string(static_cast<int>(f)));
}

void binary(BinaryCode op, BroadcastLayout const& l, float const* a, float const* b, float* y, cudaStream_t s) {
  switch (op) {
    case BinaryCode::add: return launch_binary<BinaryCode::add>(l, a, b, y, s);
    case BinaryCode::sub: return launch_binary<BinaryCode::sub>(l, a, b, y, s);
    case BinaryCode::mul: return launch_binary<BinaryCode::mul>(l, a, b, y, s);
    case BinaryCode::div: return launch_binary<BinaryCode::div>(l, a, b, y, s);
    case BinaryCode::pow: return launch_binary<BinaryCode::pow>(l, a, b, y, s);
    case BinaryCode::max: return launch_binary<BinaryCode::max>(l, a, b, y, s);
    case BinaryCode::min: return launch_binary<BinaryCode::min>(l, a, b, y, s);
  }
  throw CudaError("binary kernel: unknown op code " + std::to_string(static_cast<int>(op)));
}

void bias_activation(float* y, std::int64_t outer, std::int64_t channels, std::int64_t inner, float const* bias, ActCode act,
                     cudaStream_t s) {
  std::int64_t planes = outer * channels;
  if (planes == 0 || inner == 0 || (!bias && act == ActCode::none)) return;
  if (!bias) {  // one plane: the activation alone needs no channel
    inner *= planes;
    planes = channels = 1;
  }
  switch (act) {
    case ActCode::none: launch_bias_activation<ActCode::none>(y, planes, channels, inner, bias, s); break;
    case ActCode::relu: launch_bias_activation<ActCode::relu>(y, planes, channels, inner, bias, s); break;
    case ActCode::sigmoid: launch_bias_activation<ActCode::sigmoid>(y, planes, channels, inner, bias, s); break;
    case ActCode::tanh: launch_bias_activation<ActCode::tanh>(y, planes, channels, inner, bias, s); break;
    case ActCode::gelu: launch_bias_activation<ActCode::gelu>(y, planes, channels, inner, bias, s); break;
  }
  check_launch("bias_activation kernel");
}

void batch_norm(std::int64_t n, std::int64_t channels, std::int64_t inner, float epsilon, float const* x, float const* scale,
                float const* bias, float const* mean, float const* var, float* y, cudaStream_t s) {
  std::int64_t total = n * channels * inner;
  if (total == 0) return;
  batch_norm_kernel<<<blocks_for(total), block_threads, 0, s>>>(total, channels, inner, epsilon, x, scale, bias, mean, var, y);
  check_launch("batch_norm kernel");
}

void fill(float* y, std::int64_t n, float value, cudaStream_t s) {
  if (n == 0) return;
  fill_kernel<<<blocks_for(n), block_threads, 0, s>>>(y, n, value);
  check_launch("fill kernel");
}

}  // namespace autograph::cuda::kernels
