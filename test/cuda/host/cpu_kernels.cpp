// CPU versions of the kernel functions of autograph/cuda/kernels.hpp, for the host tests: the
// same descriptors, the same index arithmetic as src/cuda/*.cu, one loop instead of a grid.
// Linked instead of the GPU kernels, they let every lowering's launches run on the CPU, so
// the descriptors the lowerings compute (coalesced strides, offsets, tap tables, windows)
// are checked against the reference executor without a GPU. `stream` is ignored.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <string>
#include <vector>

#include "autograph/cuda/attention_tiles.hpp"
#include "autograph/cuda/error.hpp"
#include "autograph/cuda/kernels.hpp"

namespace autograph::cuda::kernels {
namespace {

float unary_op(UnaryCode f, float x, float alpha, float beta) {
  switch (f) {
    case UnaryCode::relu: return x > 0.f ? x : 0.f;
    case UnaryCode::sigmoid: return 1.f / (1.f + std::exp(-x));
    case UnaryCode::tanh: return std::tanh(x);
    case UnaryCode::gelu: return 0.5f * x * (1.f + std::erf(x * 0.70710678118654752f));
    case UnaryCode::exp: return std::exp(x);
    case UnaryCode::log: return std::log(x);
    case UnaryCode::sqrt: return std::sqrt(x);
    case UnaryCode::erf: return std::erf(x);
    case UnaryCode::neg: return -x;
    case UnaryCode::abs: return std::fabs(x);
    case UnaryCode::reciprocal: return 1.f / x;
    case UnaryCode::leaky_relu: return x >= 0.f ? x : alpha * x;
    case UnaryCode::clip: return std::fmin(std::fmax(x, alpha), beta);
    case UnaryCode::hard_sigmoid: return std::fmax(0.f, std::fmin(1.f, alpha * x + beta));
    case UnaryCode::hard_swish: return x * std::fmax(0.f, std::fmin(1.f, x / 6.f + 0.5f));
    case UnaryCode::scale: return x * alpha + beta;
  }
  throw CudaError("unary kernel: unknown function code");
}

float binary_op(BinaryCode op, float a, float b) {
  switch (op) {
    case BinaryCode::add: return a + b;
    case BinaryCode::sub: return a - b;
    case BinaryCode::mul: return a * b;
    case BinaryCode::div: return a / b;
    case BinaryCode::pow: return std::pow(a, b);
    case BinaryCode::max: return a > b ? a : b;
    case BinaryCode::min: return a < b ? a : b;
  }
  throw CudaError("binary kernel: unknown op code");
}

float activate(ActCode a, float x) {
  switch (a) {
    case ActCode::none: return x;
    case ActCode::relu: return x > 0.f ? x : 0.f;
    case ActCode::sigmoid: return 1.f / (1.f + std::exp(-x));
    case ActCode::tanh: return std::tanh(x);
    case ActCode::gelu: return 0.5f * x * (1.f + std::erf(x * 0.70710678118654752f));
  }
  return x;
}

}  // namespace

void unary(UnaryCode f, float alpha, float beta, float const* x, float* y, std::int64_t n, cudaStream_t) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = unary_op(f, x[i], alpha, beta);
}

void binary(BinaryCode op, BroadcastLayout const& l, float const* a, float const* b, float* y, cudaStream_t) {
  std::int64_t n = 1;
  for (int d = 0; d < l.rank; ++d) n *= l.shape[d];
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t rem = i, oa = 0, ob = 0;
    for (int d = l.rank - 1; d >= 0; --d) {
      std::int64_t idx = rem % l.shape[d];
      rem /= l.shape[d];
      oa += idx * l.a_stride[d];
      ob += idx * l.b_stride[d];
    }
    y[i] = binary_op(op, a[oa], b[ob]);
  }
}

void copy_strided(StridedCopy const& c, float const* src, float* dst, cudaStream_t) {
  std::int64_t n = 1;
  for (int d = 0; d < c.rank; ++d) n *= c.shape[d];
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t rem = i, os = 0, od = 0;
    for (int d = c.rank - 1; d >= 0; --d) {
      std::int64_t idx = rem % c.shape[d];
      rem /= c.shape[d];
      os += idx * c.src_stride[d];
      od += idx * c.dst_stride[d];
    }
    dst[od] = src[os];
  }
}

void pad(PadLayout const& p, float value, float const* x, float* y, cudaStream_t) {
  std::int64_t n = 1;
  for (int d = 0; d < p.rank; ++d) n *= p.out_shape[d];
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t rem = i, ox = 0, stride = 1;
    bool inside = true;
    for (int d = p.rank - 1; d >= 0; --d) {
      std::int64_t idx = rem % p.out_shape[d] - p.before[d];
      rem /= p.out_shape[d];
      inside = inside && idx >= 0 && idx < p.in_shape[d];
      ox += idx * stride;
      stride *= p.in_shape[d];
    }
    y[i] = inside ? x[ox] : value;
  }
}

void bias_activation(float* y, std::int64_t outer, std::int64_t channels, std::int64_t inner, float const* bias, ActCode act, cudaStream_t) {
  if (!bias && act == ActCode::none) return;
  for (std::int64_t plane = 0; plane < outer * channels; ++plane) {  // the GPU kernel's planes: the channel once per plane
    float b = bias ? bias[plane % channels] : 0.f;
    float* p = y + plane * inner;
    for (std::int64_t i = 0; i < inner; ++i) p[i] = activate(act, p[i] + b);
  }
}

void crop_bias(CropLayout const& c, float const* full, float const* bias, float* y, cudaStream_t) {
  std::int64_t n = c.planes_n * c.channels * c.out_h * c.out_w;
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t j = i % c.out_w, r = i / c.out_w;
    std::int64_t h = r % c.out_h, plane = r / c.out_h;
    std::int64_t fh = h + c.top, fw = j + c.left;
    float v = fh < c.full_h && fw < c.full_w ? full[(plane * c.full_h + fh) * c.full_w + fw] : 0.f;
    y[i] = v + (bias ? bias[plane % c.channels] : 0.f);
  }
}

void batch_norm(std::int64_t n, std::int64_t channels, std::int64_t inner, float epsilon, float const* x, float const* scale,
                float const* bias, float const* mean, float const* var, float* y, cudaStream_t) {
  std::int64_t total = n * channels * inner;
  for (std::int64_t i = 0; i < total; ++i) {
    std::int64_t c = (i / inner) % channels;
    float a = scale[c] / std::sqrt(var[c] + epsilon);
    y[i] = (x[i] - mean[c]) * a + bias[c];
  }
}

void layer_norm(std::int64_t rows, std::int64_t len, float epsilon, float const* x, float const* gamma, float const* beta, float* y,
                cudaStream_t) {
  for (std::int64_t r = 0; r < rows; ++r) {
    float const* xr = x + r * len;
    float sum = 0.f;
    for (std::int64_t j = 0; j < len; ++j) sum += xr[j];
    float mean = sum / static_cast<float>(len), sq = 0.f;
    for (std::int64_t j = 0; j < len; ++j) sq += (xr[j] - mean) * (xr[j] - mean);
    float inv_std = 1.f / std::sqrt(sq / static_cast<float>(len) + epsilon);
    for (std::int64_t j = 0; j < len; ++j) y[r * len + j] = (xr[j] - mean) * inv_std * gamma[j] + beta[j];
  }
}

void add_layer_norm(BroadcastLayout const& l, std::int64_t len, float epsilon, float const* a, float const* b, float const* gamma,
                    float const* beta, float* y, float* sum, cudaStream_t) {
  std::int64_t n = 1;
  for (int d = 0; d < l.rank; ++d) n *= l.shape[d];
  std::vector<float> s(static_cast<std::size_t>(len));
  for (std::int64_t base = 0; len > 0 && base < n; base += len) {
    for (std::int64_t j = 0; j < len; ++j) {
      std::int64_t rem = base + j, oa = 0, ob = 0;
      for (int d = l.rank - 1; d >= 0; --d) {
        std::int64_t idx = rem % l.shape[d];
        rem /= l.shape[d];
        oa += idx * l.a_stride[d];
        ob += idx * l.b_stride[d];
      }
      s[static_cast<std::size_t>(j)] = a[oa] + b[ob];
      if (sum) sum[base + j] = s[static_cast<std::size_t>(j)];
    }
    layer_norm(1, len, epsilon, s.data(), gamma, beta, y + base, nullptr);
  }
}

// The GPU kernel's algorithm in the same tiles (attention_tiles.hpp): per query row, keys in
// tiles of block_k, the running maximum, sum and accumulator rescaled as the maximum grows.
void fused_attention(AttentionLayout const& L, float const* q, float const* kT, float const* v, float const* mask, float* out, cudaStream_t) {
  if (L.d > attention::max_head_dim || L.dv > attention::max_head_dim || L.tk <= 0)
    throw CudaError("fused_attention kernel: head dimensions outside what it is compiled for");
  attention::Tiles t = attention::tiles_for(L.d, L.dv);
  std::int64_t batch = 1;
  for (int i = 0; i < L.batch_rank; ++i) batch *= L.batch_shape[i];
  std::vector<float> acc(static_cast<std::size_t>(L.dv)), p(static_cast<std::size_t>(t.block_k));
  for (std::int64_t b = 0; b < batch; ++b) {
    std::int64_t qo = 0, ko = 0, vo = 0, mo = 0;
    for (std::int64_t i = L.batch_rank - 1, rem = b; i >= 0; --i) {
      std::int64_t idx = rem % L.batch_shape[i];
      rem /= L.batch_shape[i];
      qo += idx * L.q_stride[i];
      ko += idx * L.k_stride[i];
      vo += idx * L.v_stride[i];
      mo += idx * L.mask_stride[i];
    }
    for (std::int64_t r = 0; r < L.tq; ++r) {
      float m = -std::numeric_limits<float>::infinity(), l = 0.f;
      std::fill(acc.begin(), acc.end(), 0.f);
      for (std::int64_t k0 = 0; k0 < L.tk; k0 += t.block_k) {
        std::int64_t keys = std::min<std::int64_t>(t.block_k, L.tk - k0);
        float tile_max = -std::numeric_limits<float>::infinity();
        for (std::int64_t j = 0; j < keys; ++j) {
          float dot = 0.f;
          for (std::int64_t i = 0; i < L.d; ++i) dot = std::fma(q[qo + r * L.d + i], kT[ko + i * L.tk + k0 + j], dot);
          float s = L.scale * dot;
          if (mask) s += mask[mo + r * L.mask_row + (k0 + j) * L.mask_col];
          p[static_cast<std::size_t>(j)] = s;
          tile_max = std::fmax(tile_max, s);
        }
        float m_new = std::fmax(m, tile_max);
        float ref = std::isinf(m_new) && m_new < 0 ? 0.f : m_new;
        float rescale = std::exp(m - ref), sum = 0.f;
        for (std::int64_t j = 0; j < keys; ++j) sum += p[static_cast<std::size_t>(j)] = std::exp(p[static_cast<std::size_t>(j)] - ref);
        l = l * rescale + sum;
        m = m_new;
        for (std::int64_t c = 0; c < L.dv; ++c) {
          float a = acc[static_cast<std::size_t>(c)] * rescale;
          for (std::int64_t j = 0; j < keys; ++j) a = std::fma(p[static_cast<std::size_t>(j)], v[vo + (k0 + j) * L.dv + c], a);
          acc[static_cast<std::size_t>(c)] = a;
        }
      }
      for (std::int64_t c = 0; c < L.dv; ++c) out[(b * L.tq + r) * L.dv + c] = acc[static_cast<std::size_t>(c)] / l;
    }
  }
}

void softmax(std::int64_t outer, std::int64_t n, std::int64_t inner, float const* x, float* y, cudaStream_t) {
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      float const* xc = x + o * n * inner + i;
      float* yc = y + o * n * inner + i;
      float m = -std::numeric_limits<float>::infinity(), sum = 0.f;
      for (std::int64_t k = 0; k < n; ++k) m = std::fmax(m, xc[k * inner]);
      for (std::int64_t k = 0; k < n; ++k) sum += std::exp(xc[k * inner] - m);
      for (std::int64_t k = 0; k < n; ++k) yc[k * inner] = std::exp(xc[k * inner] - m) * (1.f / sum);
    }
}

void reduce(ReduceLayout const& r, bool mean, float const* x, float* y, cudaStream_t) {
  std::int64_t outputs = 1, count = 1;
  for (int d = 0; d < r.kept_rank; ++d) outputs *= r.kept_shape[d];
  for (int d = 0; d < r.reduced_rank; ++d) count *= r.reduced_shape[d];
  for (std::int64_t k = 0; k < outputs; ++k) {
    std::int64_t rem = k, base = 0;
    for (int d = r.kept_rank - 1; d >= 0; --d) {
      base += (rem % r.kept_shape[d]) * r.kept_stride[d];
      rem /= r.kept_shape[d];
    }
    float acc = 0.f;
    for (std::int64_t j = 0; j < count; ++j) {
      std::int64_t jr = j, off = base;
      for (int d = r.reduced_rank - 1; d >= 0; --d) {
        off += (jr % r.reduced_shape[d]) * r.reduced_stride[d];
        jr /= r.reduced_shape[d];
      }
      acc += x[off];
    }
    y[k] = acc / (mean ? static_cast<float>(count) : 1.f);
  }
}

void pool2d(PoolLayout const& p, float const* x, float* y, cudaStream_t) {
  std::int64_t n = p.planes * p.out_h * p.out_w;
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t ow = i % p.out_w, r = i / p.out_w;
    std::int64_t oh = r % p.out_h, plane = r / p.out_h;
    float const* image = x + plane * p.h * p.w;
    std::int64_t h0 = oh * p.stride_h - p.pad_top, w0 = ow * p.stride_w - p.pad_left;
    std::int64_t ha = std::max<std::int64_t>(h0, 0), hb = std::min(h0 + p.kernel_h, p.h);
    std::int64_t wa = std::max<std::int64_t>(w0, 0), wb = std::min(w0 + p.kernel_w, p.w);
    if (p.max) {
      float m = -std::numeric_limits<float>::infinity();
      for (std::int64_t h = ha; h < hb; ++h)
        for (std::int64_t w = wa; w < wb; ++w) m = std::fmax(m, image[h * p.w + w]);
      y[i] = m;
    } else {
      float sum = 0.f;
      for (std::int64_t h = ha; h < hb; ++h)
        for (std::int64_t w = wa; w < wb; ++w) sum += image[h * p.w + w];
      std::int64_t count = p.count_include_pad
                               ? (std::min(h0 + p.kernel_h, p.h + p.pad_bottom) - h0) * (std::min(w0 + p.kernel_w, p.w + p.pad_right) - w0)
                               : (hb - ha) * (wb - wa);
      y[i] = sum / static_cast<float>(count);
    }
  }
}

void resize(ResizeLayout const& r, ResizeTap const* table, float const* x, float* y, cudaStream_t) {
  std::int64_t n = 1;
  for (int d = 0; d < r.rank; ++d) n *= r.out_shape[d];
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t in_stride[max_rank];
    ResizeTap const* rows[max_rank];
    std::int64_t rem = i, base = 0, stride = 1, combos = 1;
    bool outside = false;
    for (int d = r.rank - 1; d >= 0; --d) {
      std::int64_t j = rem % r.out_shape[d];
      rem /= r.out_shape[d];
      in_stride[d] = stride;
      if (r.taps[d] > 0) {
        rows[d] = table + r.first[d] + j * r.taps[d];
        outside = outside || rows[d][0].index < 0;
        combos *= r.taps[d];
      } else {
        rows[d] = nullptr;
        base += j * stride;
      }
      stride *= r.in_shape[d];
    }
    if (outside) {
      y[i] = r.extrapolation_value;
      continue;
    }
    float acc = 0.f;
    for (std::int64_t c = 0; c < combos; ++c) {
      std::int64_t cr = c, off = base;
      float w = 1.f;
      for (int d = r.rank - 1; d >= 0; --d) {
        if (!rows[d]) continue;
        ResizeTap t = rows[d][cr % r.taps[d]];
        cr /= r.taps[d];
        w *= t.weight;
        off += static_cast<std::int64_t>(t.index) * in_stride[d];
      }
      if (w != 0.f) acc += w * x[off];
    }
    y[i] = acc;
  }
}

void depthwise_conv2d(DepthwiseLayout const& d, float const* x, float const* w, float const* bias, float* y, cudaStream_t) {
  std::int64_t total = d.n * d.channels * d.multiplier * d.out_h * d.out_w;
  for (std::int64_t i = 0; i < total; ++i) {  // the GPU kernel's index arithmetic (src/cuda/own_backend.cu)
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

void elementwise_chain(ChainProgram const& p, ChainInputs const& in, float* y, cudaStream_t) {
  if (p.n == 0) return;
  if (p.steps < 1 || p.steps > max_chain_steps || p.inputs > max_chain_inputs)
    throw CudaError("elementwise_chain kernel: " + std::to_string(p.steps) + " steps and " + std::to_string(p.inputs) + " inputs");
  for (std::int64_t i = 0; i < p.n; ++i) {
    float slot[max_chain_inputs + max_chain_steps];
    for (int k = 0; k < p.inputs; ++k) slot[k] = p.per_channel[k] ? 0.f : in.ptr[k][i];
    for (int s = 0; s < p.steps; ++s) {
      ChainStep const& st = p.step[s];
      float v;
      if (st.kind == ChainStep::Kind::unary) {
        v = unary_op(static_cast<UnaryCode>(st.code), slot[st.a], st.alpha, st.beta);
      } else if (st.kind == ChainStep::Kind::binary) {
        v = binary_op(static_cast<BinaryCode>(st.code), slot[st.a], slot[st.b]);
      } else {
        std::int64_t c = (i / p.inner) % p.channels;
        float a = in.ptr[st.params[0]][c] / std::sqrt(in.ptr[st.params[3]][c] + st.alpha);
        v = (slot[st.a] - in.ptr[st.params[2]][c]) * a + in.ptr[st.params[1]][c];
      }
      slot[p.inputs + s] = v;
    }
    y[i] = slot[p.inputs + p.steps - 1];
  }
}

void fill(float* y, std::int64_t n, float value, cudaStream_t) { std::fill(y, y + n, value); }

}  // namespace autograph::cuda::kernels
