// The fused attention kernel (FusedAttention; the tiles and the algorithm are described in
// autograph/cuda/attention_tiles.hpp). FP32 throughout, with the IEEE-rounded expf (no
// fast-math), as the other kernels.
#include <cuda_runtime.h>

#include <string>

#include "autograph/cuda/attention_tiles.hpp"
#include "common.cuh"

namespace autograph::cuda::kernels {
namespace {

namespace at = attention;

/// One (batch matrix, query tile) at a time, with the grid's stride. Per key tile: stage kT's
/// and v's tile; each warp computes whole rows of the score tile (lane = key), scales and masks
/// them, and updates its rows' maximum and sum (one warp reduction each); then every thread
/// rescales its share of the output rows and adds the tile's probabilities times v.
template <int BlockQ, int BlockK, int HeadDim>
__global__ void __launch_bounds__(at::threads) fused_attention_kernel(AttentionLayout L, float const* __restrict__ q,
                                                                      float const* __restrict__ kT, float const* __restrict__ v,
                                                                      float const* __restrict__ mask, float* __restrict__ out) {
  constexpr at::Tiles tiles{BlockQ, BlockK, HeadDim};
  constexpr int per_row = tiles.threads_per_row(), columns = tiles.columns_per_thread();
  static_assert(BlockK == geometry::warp_size, "a warp holds one row of a score tile");
  static_assert(at::threads % BlockQ == 0 && HeadDim % per_row == 0, "the output rows split evenly over the threads");
  static_assert(BlockQ * BlockK % at::threads == 0, "the score tile splits evenly over the threads");

  extern __shared__ float shared[];
  std::int64_t const d = L.d, dv = L.dv, tq = L.tq, tk = L.tk;
  float* qs = shared;                         // [BlockQ][d]
  float* ks = qs + BlockQ * d;                // [d][BlockK]
  float* vs = ks + d * BlockK;                // [BlockK][dv]
  float* ps = vs + BlockK * dv;               // [BlockQ][BlockK + 1]
  float* row_max = ps + BlockQ * (BlockK + 1);
  float* row_sum = row_max + BlockQ;
  float* row_rescale = row_sum + BlockQ;

  int const t = static_cast<int>(threadIdx.x), lane = t % geometry::warp_size, warp = t / geometry::warp_size;
  int const out_row = t / per_row, out_col = t % per_row;  // this thread's output row, first column
  std::int64_t const q_tiles = at::query_tiles(tiles, tq);
  std::int64_t batch = 1;
  for (int i = 0; i < L.batch_rank; ++i) batch *= L.batch_shape[i];

  for (std::int64_t tile = blockIdx.x; tile < batch * q_tiles; tile += gridDim.x) {
    std::int64_t b = tile / q_tiles, q0 = (tile % q_tiles) * BlockQ;
    std::int64_t qo = 0, ko = 0, vo = 0, mo = 0;
    for (std::int64_t i = L.batch_rank - 1, rem = b; i >= 0; --i) {
      std::int64_t idx = rem % L.batch_shape[i];
      rem /= L.batch_shape[i];
      qo += idx * L.q_stride[i];
      ko += idx * L.k_stride[i];
      vo += idx * L.v_stride[i];
      mo += idx * L.mask_stride[i];
    }
    __syncthreads();  // the previous tile's last reads of row_sum and the shared tiles are done
    for (std::int64_t e = t; e < BlockQ * d; e += at::threads) {
      std::int64_t r = e / d;
      qs[e] = q0 + r < tq ? q[qo + (q0 + r) * d + e % d] : 0.f;
    }
    if (t < BlockQ) {
      row_max[t] = -INFINITY;
      row_sum[t] = 0.f;
    }
    float acc[columns];
#pragma unroll
    for (int c = 0; c < columns; ++c) acc[c] = 0.f;

    for (std::int64_t k0 = 0; k0 < tk; k0 += BlockK) {
      __syncthreads();  // the previous key tile's products are done with ks, vs and ps
      for (std::int64_t e = t; e < d * BlockK; e += at::threads) {
        std::int64_t j = e % BlockK;
        ks[e] = k0 + j < tk ? kT[ko + (e / BlockK) * tk + k0 + j] : 0.f;
      }
      for (std::int64_t e = t; e < BlockK * dv; e += at::threads) {
        std::int64_t j = e / dv;
        vs[e] = k0 + j < tk ? v[vo + (k0 + j) * dv + e % dv] : 0.f;
      }
      __syncthreads();
      // Warp w takes rows w, w + 4, ...: lane j scores key k0 + j against the row.
      for (int r = warp; r < BlockQ; r += at::threads / geometry::warp_size) {
        float s = -INFINITY;  // keys past the end (and rows past the end, never written) weigh nothing
        if (k0 + lane < tk) {
          float dot = 0.f;
          for (std::int64_t i = 0; i < d; ++i) dot = fmaf(qs[r * d + i], ks[i * BlockK + lane], dot);
          s = L.scale * dot;
          if (mask && q0 + r < tq) s += mask[mo + (q0 + r) * L.mask_row + (k0 + lane) * L.mask_col];
        }
        float m_old = row_max[r];
        float m_new = fmaxf(m_old, detail::warp_max(s));
        // A row with no finite score yet keeps every weight 0 (exp(-inf)), not exp(-inf - -inf) = NaN.
        float ref = m_new == -INFINITY ? 0.f : m_new;
        float p = expf(s - ref);
        float sum = detail::warp_sum(p);
        ps[r * (BlockK + 1) + lane] = p;
        if (lane == 0) {
          float rescale = expf(m_old - ref);
          row_rescale[r] = rescale;
          row_sum[r] = row_sum[r] * rescale + sum;
          row_max[r] = m_new;
        }
      }
      __syncthreads();
      float rescale = row_rescale[out_row];
      std::int64_t keys = tk - k0 < BlockK ? tk - k0 : BlockK;
#pragma unroll
      for (int c = 0; c < columns; ++c) {
        std::int64_t col = out_col + static_cast<std::int64_t>(c) * per_row;
        if (col < dv) {
          float a = acc[c] * rescale;
          for (std::int64_t j = 0; j < keys; ++j) a = fmaf(ps[out_row * (BlockK + 1) + j], vs[j * dv + col], a);
          acc[c] = a;
        }
      }
    }
    __syncthreads();
    if (q0 + out_row < tq) {
      float inv = 1.f / row_sum[out_row];  // 0 for a row masked entirely: NaN, as the reference's softmax
      float* o = out + (b * tq + q0 + out_row) * dv;
#pragma unroll
      for (int c = 0; c < columns; ++c) {
        std::int64_t col = out_col + static_cast<std::int64_t>(c) * per_row;
        if (col < dv) o[col] = acc[c] * inv;
      }
    }
  }
}

template <int BlockQ, int BlockK, int HeadDim>
void launch(AttentionLayout const& l, float const* q, float const* kT, float const* v, float const* mask, float* out, cudaStream_t s) {
  constexpr at::Tiles tiles{BlockQ, BlockK, HeadDim};
  std::int64_t batch = 1;
  for (int i = 0; i < l.batch_rank; ++i) batch *= l.batch_shape[i];
  fused_attention_kernel<BlockQ, BlockK, HeadDim>
      <<<at::blocks(tiles, batch, l.tq), at::threads, at::shared_bytes(tiles, l.d, l.dv), s>>>(l, q, kT, v, mask, out);
}

}  // namespace

void fused_attention(AttentionLayout const& l, float const* q, float const* kT, float const* v, float const* mask, float* out, cudaStream_t s) {
  if (l.d > at::max_head_dim || l.dv > at::max_head_dim || l.tk <= 0)
    throw CudaError("fused_attention kernel: head dimensions " + std::to_string(l.d) + " and " + std::to_string(l.dv) + " over " +
                    std::to_string(l.tk) + " keys are outside what it is compiled for (the lowering checks this)");
  if (at::tiles_for(l.d, l.dv).head_dim == at::narrow_heads.head_dim)
    launch<at::narrow_heads.block_q, at::narrow_heads.block_k, at::narrow_heads.head_dim>(l, q, kT, v, mask, out, s);
  else
    launch<at::wide_heads.block_q, at::wide_heads.block_k, at::wide_heads.head_dim>(l, q, kT, v, mask, out, s);
  check_launch("fused_attention kernel");
}

}  // namespace autograph::cuda::kernels
