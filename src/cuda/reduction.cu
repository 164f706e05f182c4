// Row reductions: softmax, layer normalisation (alone and after a residual add), sum/mean over
// arbitrary axes.
//
// Short rows (<= 1024, the attention and hidden sizes of the transformer models) get one warp
// each, eight rows to a block; longer rows get a whole block. Either loops over rows with the
// grid's stride, since the grid is capped (launch_geometry.hpp) and a tall tensor has more
// rows than the grid has warps. Softmax along a non-last axis (inner > 1) runs one thread
// per column, reading rows in order across the warp.
#include <cuda_runtime.h>

#include "common.cuh"

namespace autograph::cuda::kernels {
namespace {

using detail::blocks_for;
using detail::block_threads;

constexpr std::int64_t warp_row_limit = 1024;
using geometry::rows_per_block;
using geometry::warp_size;

/// The first row this warp (WarpRows) or block handles, the step to its next row, and this
/// thread's lane within the row. A row belongs to a whole warp or block, so a loop over rows
/// is uniform across it: the shuffles and barriers of the reductions stay full.
template <bool WarpRows>
struct RowCursor {
  std::int64_t row, step;
  int lane, width;
  __device__ RowCursor() {
    if constexpr (WarpRows) {
      row = geometry::first_item(blockIdx.x, rows_per_block, threadIdx.x / warp_size);
      step = geometry::item_stride(gridDim.x, rows_per_block);
      lane = threadIdx.x % warp_size;
      width = warp_size;
    } else {
      row = geometry::first_item(blockIdx.x, 1, 0);
      step = geometry::item_stride(gridDim.x, 1);
      lane = threadIdx.x;
      width = blockDim.x;
    }
  }
};

template <bool WarpRows, bool Max>
__device__ float row_reduce(float v, float* scratch) {
  if constexpr (WarpRows) return Max ? detail::warp_max(v) : detail::warp_sum(v);
  else return detail::block_reduce<Max>(v, scratch);
}

template <bool WarpRows>
__global__ void softmax_rows(std::int64_t rows, std::int64_t n, float const* __restrict__ x, float* __restrict__ y) {
  __shared__ float scratch[32];
  RowCursor<WarpRows> c;
  for (; c.row < rows; c.row += c.step) {
    float const* xr = x + c.row * n;
    float* yr = y + c.row * n;
    float m = -INFINITY;
    for (std::int64_t j = c.lane; j < n; j += c.width) m = fmaxf(m, xr[j]);
    m = row_reduce<WarpRows, true>(m, scratch);
    float sum = 0.f;
    for (std::int64_t j = c.lane; j < n; j += c.width) sum += expf(xr[j] - m);
    sum = row_reduce<WarpRows, false>(sum, scratch);
    float inv = 1.f / sum;
    for (std::int64_t j = c.lane; j < n; j += c.width) yr[j] = expf(xr[j] - m) * inv;
  }
}

__global__ void softmax_columns(std::int64_t outer, std::int64_t n, std::int64_t inner, float const* __restrict__ x, float* __restrict__ y) {
  std::int64_t columns = outer * inner;
  for (std::int64_t col = detail::global_index(); col < columns; col += detail::grid_stride()) {
    std::int64_t o = col / inner, i = col % inner;
    float const* xc = x + o * n * inner + i;
    float* yc = y + o * n * inner + i;
    float m = -INFINITY;
    for (std::int64_t k = 0; k < n; ++k) m = fmaxf(m, xc[k * inner]);
    float sum = 0.f;
    for (std::int64_t k = 0; k < n; ++k) sum += expf(xc[k * inner] - m);
    float inv = 1.f / sum;
    for (std::int64_t k = 0; k < n; ++k) yc[k * inner] = expf(xc[k * inner] - m) * inv;
  }
}

// Two passes over the row (mean, then centred squares): no cancellation, as the reference.
template <bool WarpRows>
__global__ void layer_norm_rows(std::int64_t rows, std::int64_t len, float epsilon, float const* __restrict__ x, float const* __restrict__ gamma,
                                float const* __restrict__ beta, float* __restrict__ y) {
  __shared__ float scratch[32];
  RowCursor<WarpRows> c;
  for (; c.row < rows; c.row += c.step) {
    float const* xr = x + c.row * len;
    float* yr = y + c.row * len;
    float sum = 0.f;
    for (std::int64_t j = c.lane; j < len; j += c.width) sum += xr[j];
    float mean = row_reduce<WarpRows, false>(sum, scratch) / static_cast<float>(len);
    float sq = 0.f;
    for (std::int64_t j = c.lane; j < len; j += c.width) {
      float d = xr[j] - mean;
      sq += d * d;
    }
    float inv_std = rsqrtf(row_reduce<WarpRows, false>(sq, scratch) / static_cast<float>(len) + epsilon);
    for (std::int64_t j = c.lane; j < len; j += c.width) yr[j] = (xr[j] - mean) * inv_std * gamma[j] + beta[j];
  }
}

/// The offset of output element i in an operand read through strides `stride` of `l`'s shape.
__device__ std::int64_t broadcast_offset(BroadcastLayout const& l, std::int64_t const* stride, std::int64_t i) {
  std::int64_t off = 0;
  for (int d = l.rank - 1; d >= 0; --d) {
    off += (i % l.shape[d]) * stride[d];
    i /= l.shape[d];
  }
  return off;
}

// AddLayerNorm: a block per row. The sum s = a + b is formed once, kept in shared memory when
// the row fits (Cached; otherwise re-formed from a and b in each pass), and written out when
// asked; then the two passes of layer_norm_rows (mean, centred squares) and the output.
template <bool Cached>
__global__ void add_layer_norm_rows(BroadcastLayout l, std::int64_t rows, std::int64_t len, float epsilon, float const* __restrict__ a,
                                    float const* __restrict__ b, float const* __restrict__ gamma, float const* __restrict__ beta,
                                    float* __restrict__ y, float* __restrict__ sum_out) {
  extern __shared__ float row_cache[];
  __shared__ float scratch[32];
  auto sum_at = [&](std::int64_t i) { return a[broadcast_offset(l, l.a_stride, i)] + b[broadcast_offset(l, l.b_stride, i)]; };
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    std::int64_t base = row * len;
    float acc = 0.f;
    for (std::int64_t j = threadIdx.x; j < len; j += blockDim.x) {
      float s = sum_at(base + j);
      if constexpr (Cached) row_cache[j] = s;
      if (sum_out) sum_out[base + j] = s;
      acc += s;
    }
    float mean = detail::block_reduce<false>(acc, scratch) / static_cast<float>(len);
    float sq = 0.f;
    for (std::int64_t j = threadIdx.x; j < len; j += blockDim.x) {
      float dv = (Cached ? row_cache[j] : sum_at(base + j)) - mean;
      sq += dv * dv;
    }
    float inv_std = rsqrtf(detail::block_reduce<false>(sq, scratch) / static_cast<float>(len) + epsilon);
    for (std::int64_t j = threadIdx.x; j < len; j += blockDim.x) {
      float s = Cached ? row_cache[j] : sum_at(base + j);
      y[base + j] = (s - mean) * inv_std * gamma[j] + beta[j];
    }
    __syncthreads();  // the next row's first pass overwrites row_cache
  }
}

/// Rows up to this many floats are kept in shared memory (32 KiB, under the 48 KiB a block may
/// take without opting in).
constexpr std::int64_t cached_row_limit = 8192;

/// One block per kept index; the block's threads stride over the reduced sub-block.
__global__ void reduce_kernel(ReduceLayout r, std::int64_t outputs, std::int64_t count, float divisor, float const* __restrict__ x,
                              float* __restrict__ y) {
  __shared__ float scratch[32];
  for (std::int64_t k = blockIdx.x; k < outputs; k += gridDim.x) {
    std::int64_t rem = k, base = 0;
    for (int d = r.kept_rank - 1; d >= 0; --d) {
      base += (rem % r.kept_shape[d]) * r.kept_stride[d];
      rem /= r.kept_shape[d];
    }
    float acc = 0.f;
    for (std::int64_t j = threadIdx.x; j < count; j += blockDim.x) {
      std::int64_t jr = j, off = base;
      for (int d = r.reduced_rank - 1; d >= 0; --d) {
        off += (jr % r.reduced_shape[d]) * r.reduced_stride[d];
        jr /= r.reduced_shape[d];
      }
      acc += x[off];
    }
    acc = detail::block_reduce<false>(acc, scratch);
    if (threadIdx.x == 0) y[k] = acc / divisor;
  }
}

}  // namespace

void softmax(std::int64_t outer, std::int64_t n, std::int64_t inner, float const* x, float* y, cudaStream_t s) {
  if (outer * n * inner == 0) return;
  if (inner == 1) {
    if (n <= warp_row_limit)
      softmax_rows<true><<<blocks_for(outer, rows_per_block), block_threads, 0, s>>>(outer, n, x, y);
    else
      softmax_rows<false><<<blocks_for(outer, 1), block_threads, 0, s>>>(outer, n, x, y);
  } else {
    softmax_columns<<<blocks_for(outer * inner), block_threads, 0, s>>>(outer, n, inner, x, y);
  }
  check_launch("softmax kernel");
}

void layer_norm(std::int64_t rows, std::int64_t len, float epsilon, float const* x, float const* gamma, float const* beta, float* y,
                cudaStream_t s) {
  if (rows * len == 0) return;
  if (len <= warp_row_limit)
    layer_norm_rows<true><<<blocks_for(rows, rows_per_block), block_threads, 0, s>>>(rows, len, epsilon, x, gamma, beta, y);
  else
    layer_norm_rows<false><<<blocks_for(rows, 1), block_threads, 0, s>>>(rows, len, epsilon, x, gamma, beta, y);
  check_launch("layer_norm kernel");
}

void add_layer_norm(BroadcastLayout const& layout, std::int64_t len, float epsilon, float const* a, float const* b, float const* gamma,
                    float const* beta, float* y, float* sum, cudaStream_t s) {
  std::int64_t total = 1;
  for (int d = 0; d < layout.rank; ++d) total *= layout.shape[d];
  if (total == 0 || len == 0) return;
  std::int64_t rows = total / len;
  if (len <= cached_row_limit)
    add_layer_norm_rows<true><<<blocks_for(rows, 1), block_threads, static_cast<std::size_t>(len) * sizeof(float), s>>>(layout, rows, len, epsilon,
                                                                                                                      a, b, gamma, beta, y, sum);
  else
    add_layer_norm_rows<false><<<blocks_for(rows, 1), block_threads, 0, s>>>(layout, rows, len, epsilon, a, b, gamma, beta, y, sum);
  check_launch("add_layer_norm kernel");
}

void reduce(ReduceLayout const& r, bool mean, float const* x, float* y, cudaStream_t s) {
  std::int64_t outputs = 1, count = 1;
  for (int d = 0; d < r.kept_rank; ++d) outputs *= r.kept_shape[d];
  for (int d = 0; d < r.reduced_rank; ++d) count *= r.reduced_shape[d];
  if (outputs == 0) return;
  // Threads per block: enough for the reduced count, a whole number of warps, at most 256.
  int threads = 32;
  while (threads < block_threads && threads < count) threads *= 2;
  float divisor = mean ? static_cast<float>(count) : 1.f;  // mean of nothing: 0 / 0 = NaN, as the reference
  reduce_kernel<<<blocks_for(outputs, 1), threads, 0, s>>>(r, outputs, count, divisor, x, y);
  check_launch("reduce kernel");
}

}  // namespace autograph::cuda::kernels
