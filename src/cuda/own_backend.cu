// The kernels only the OwnCudaKernels backend runs (cuda/backends/own_kernels.hpp): a direct
// depthwise convolution and an elementwise chain in one pass. One thread per output element in
// a grid-stride loop (launch_geometry.hpp); the arithmetic is the reference kernels' and the
// batch_norm / bias_activation kernels' (elementwise.cu), written out again here so that the
// host tests' CPU versions (test/cuda/host/cpu_kernels.cpp) can mirror it line by line.
#include <cuda_runtime.h>

#include "common.cuh"

namespace autograph::cuda::kernels {
namespace {

using detail::blocks_for;
using detail::block_threads;

__device__ __forceinline__ float activate(ActCode a, float x) {
  switch (a) {
    case ActCode::none: return x;
    case ActCode::relu: return x > 0.f ? x : 0.f;
    case ActCode::sigmoid: return 1.f / (1.f + expf(-x));
    case ActCode::tanh: return tanhf(x);
    case ActCode::gelu: return 0.5f * x * (1.f + erff(x * 0.70710678118654752f));
  }
  return x;
}

__device__ __forceinline__ float unary_value(int code, float x, float alpha, float beta) {
  switch (static_cast<UnaryCode>(code)) {
    case UnaryCode::relu: return x > 0.f ? x : 0.f;
    case UnaryCode::sigmoid: return 1.f / (1.f + expf(-x));
    case UnaryCode::tanh: return tanhf(x);
    case UnaryCode::gelu: return 0.5f * x * (1.f + erff(x * 0.70710678118654752f));
    case UnaryCode::exp: return expf(x);
    case UnaryCode::log: return logf(x);
    case UnaryCode::sqrt: return sqrtf(x);
    case UnaryCode::erf: return erff(x);
    case UnaryCode::neg: return -x;
    case UnaryCode::abs: return fabsf(x);
    case UnaryCode::reciprocal: return 1.f / x;
    case UnaryCode::leaky_relu: return x >= 0.f ? x : alpha * x;
    case UnaryCode::clip: return fminf(fmaxf(x, alpha), beta);
    case UnaryCode::hard_sigmoid: return fmaxf(0.f, fminf(1.f, alpha * x + beta));
    case UnaryCode::hard_swish: return x * fmaxf(0.f, fminf(1.f, x / 6.f + 0.5f));
    case UnaryCode::scale: return x * alpha + beta;
  }
  return x;
}

__device__ __forceinline__ float binary_value(int code, float a, float b) {
  switch (static_cast<BinaryCode>(code)) {
    case BinaryCode::add: return a + b;
    case BinaryCode::sub: return a - b;
    case BinaryCode::mul: return a * b;
    case BinaryCode::div: return a / b;
    case BinaryCode::pow: return powf(a, b);
    case BinaryCode::max: return a > b ? a : b;
    case BinaryCode::min: return a < b ? a : b;
  }
  return a;
}

__global__ void depthwise_kernel(DepthwiseLayout d, float const* __restrict__ x, float const* __restrict__ w, float const* __restrict__ bias,
                                 float* __restrict__ y, std::int64_t total) {
  for (std::int64_t i = detail::global_index(); i < total; i += detail::grid_stride()) {
    std::int64_t ow = i % d.out_w, r = i / d.out_w;
    std::int64_t oh = r % d.out_h;
    r /= d.out_h;
    std::int64_t k = r % (d.channels * d.multiplier), n = r / (d.channels * d.multiplier);
    std::int64_t c = k / d.multiplier;
    float const* image = x + (n * d.channels + c) * d.h * d.w;
    float const* filter = w + k * d.kernel_h * d.kernel_w;
    float acc = 0.f;
    for (std::int64_t fh = 0; fh < d.kernel_h; ++fh) {
      std::int64_t ih = oh * d.stride_h - d.pad_top + fh * d.dilation_h;
      if (ih < 0 || ih >= d.h) continue;
      for (std::int64_t fw = 0; fw < d.kernel_w; ++fw) {
        std::int64_t iw = ow * d.stride_w - d.pad_left + fw * d.dilation_w;
        if (iw < 0 || iw >= d.w) continue;
        acc += image[ih * d.w + iw] * filter[fh * d.kernel_w + fw];
      }
    }
    y[i] = activate(d.act, acc + (bias ? bias[k] : 0.f));
  }
}

__global__ void chain_kernel(ChainProgram p, ChainInputs in, float* __restrict__ y) {
  for (std::int64_t i = detail::global_index(); i < p.n; i += detail::grid_stride()) {
    float slot[max_chain_inputs + max_chain_steps];
    for (int k = 0; k < p.inputs; ++k) slot[k] = p.per_channel[k] ? 0.f : in.ptr[k][i];
    for (int s = 0; s < p.steps; ++s) {
      ChainStep const& st = p.step[s];
      float v;
      if (st.kind == ChainStep::Kind::unary) {
        v = unary_value(st.code, slot[st.a], st.alpha, st.beta);
      } else if (st.kind == ChainStep::Kind::binary) {
        v = binary_value(st.code, slot[st.a], slot[st.b]);
      } else {
        std::int64_t c = (i / p.inner) % p.channels;
        float a = in.ptr[st.params[0]][c] / sqrtf(in.ptr[st.params[3]][c] + st.alpha);
        v = (slot[st.a] - in.ptr[st.params[2]][c]) * a + in.ptr[st.params[1]][c];
      }
      slot[p.inputs + s] = v;
    }
    y[i] = slot[p.inputs + p.steps - 1];
  }
}

}  // namespace

void depthwise_conv2d(DepthwiseLayout const& d, float const* x, float const* w, float const* bias, float* y, cudaStream_t s) {
  std::int64_t total = d.n * d.channels * d.multiplier * d.out_h * d.out_w;
  if (total == 0) return;
  depthwise_kernel<<<blocks_for(total), block_threads, 0, s>>>(d, x, w, bias, y, total);
  check_launch("depthwise_conv2d kernel");
}

void elementwise_chain(ChainProgram const& p, ChainInputs const& in, float* y, cudaStream_t s) {
  if (p.n == 0) return;
  if (p.steps < 1 || p.steps > max_chain_steps || p.inputs > max_chain_inputs)
    throw CudaError("elementwise_chain kernel: " + std::to_string(p.steps) + " steps and " + std::to_string(p.inputs) +
                    " inputs, at most " + std::to_string(max_chain_steps) + " and " + std::to_string(max_chain_inputs));
  chain_kernel<<<blocks_for(p.n), block_threads, 0, s>>>(p, in, y);
  check_launch("elementwise_chain kernel");
}

}  // namespace autograph::cuda::kernels
