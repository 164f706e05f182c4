// The fused attention kernel (autograph/cpu/tuned/attention.hpp): the space, and one work item
// (a block of queries of one batch entry) per sketch, compiled once per vector width with that
// width's instruction set; the OpenMP loop over the items picks the compiled width at run time.
#include "autograph/cpu/tuned/attention.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "autograph/core/error.hpp"
#include "simd.hpp"

namespace autograph::cpu::tuned {

namespace {

constexpr float log2e = 1.4426950408889634f;
constexpr std::int64_t score_buffer_limit = 256 * 1024;  // bytes: every x86-64 core since 2008 has an L2 this size or larger

std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }
std::int64_t ceil_div(std::int64_t x, std::int64_t m) { return (x + m - 1) / m; }
int available_cores() { return std::max(1, omp_get_num_procs()); }

/// Per-thread scratch, in floats, each part rounded to 16 floats (a cache line).
struct Scratch {
  std::int64_t q, k, v, s, o, stats, total;
};
Scratch scratch_of(AttentionProblem const& p, AttentionConfig const& c) {
  std::int64_t const w2 = 2 * c.vector_width;
  std::int64_t const dv_pad = round_up(p.dv, c.vector_width);
  std::int64_t const bk = std::min(c.block_k, round_up(p.tk, w2));
  std::int64_t const s_cols = c.sketch == AttentionSketch::whole_row ? round_up(p.tk, w2) : bk;
  Scratch s{};
  s.q = round_up(c.block_q * p.d, 16);
  s.k = round_up(p.d * bk, 16);
  s.v = p.dv % c.vector_width == 0 ? 0 : round_up(bk * dv_pad, 16);
  s.s = round_up(c.block_q * s_cols, 16);
  s.o = round_up(c.block_q * dv_pad, 16);
  s.stats = round_up(2 * c.block_q, 16);
  s.total = s.q + s.k + s.v + s.s + s.o + s.stats;
  return s;
}

/// What a work item reads: the problem and its pointers, resolved once per call.
struct Args {
  AttentionProblem const& p;
  AttentionConfig const& c;
  float const *q, *k, *v, *mask;
  float* out;
  Scratch scratch;
};

// ---- register tiles ---------------------------------------------------------------------------

/// s[r][0 .. 2W) = q[r] . kp[:, 0 .. 2W) for R rows: per step of the inner dimension, two key
/// vectors loaded once feed 2R fused multiply-adds with R broadcast query values.
template <int W, int R>
[[gnu::always_inline]] inline void score_tile(float const* q, std::int64_t ldq, float const* kp, std::int64_t ldk, std::int64_t d, float* s,
                                              std::int64_t lds) {
  using V = simd::vf<W>;
  V acc[R][2];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = V{};
  for (std::int64_t x = 0; x < d; ++x) {
    V k0 = simd::load<W>(kp + x * ldk), k1 = simd::load<W>(kp + x * ldk + W);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      V qr = simd::broadcast<W>(q[r * ldq + x]);
      acc[r][0] += qr * k0;
      acc[r][1] += qr * k1;
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    simd::store<W>(s + r * lds, acc[r][0]);
    simd::store<W>(s + r * lds + W, acc[r][1]);
  }
}

/// o[r][0 .. C W) += sum_j p[r][j] v[j][0 .. C W) for R rows and n keys: C value vectors loaded
/// once per key feed R C fused multiply-adds.
template <int W, int R, int C>
[[gnu::always_inline]] inline void value_tile(float const* p, std::int64_t ldp, float const* v, std::int64_t ldv, std::int64_t n, float* o,
                                              std::int64_t ldo) {
  using V = simd::vf<W>;
  V acc[R][C];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) acc[r][c] = simd::load<W>(o + r * ldo + c * W);
  for (std::int64_t j = 0; j < n; ++j) {
    V vj[C];
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) vj[c] = simd::load<W>(v + j * ldv + c * W);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      V pr = simd::broadcast<W>(p[r * ldp + j]);
#pragma GCC unroll 4
      for (int c = 0; c < C; ++c) acc[r][c] += pr * vj[c];
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) simd::store<W>(o + r * ldo + c * W, acc[r][c]);
}

/// Value vectors per register tile of R rows: as many as fit the vector registers (32 with
/// AVX-512, 16 otherwise) beside the R x C accumulators and the C loaded vectors, at most 4.
template <int W, int R>
constexpr int value_columns() {
  constexpr int registers = W == 16 ? 32 : 16;
  constexpr int c = (registers - 1) / (R + 1);
  return c < 1 ? 1 : (c > 4 ? 4 : c);
}

/// Scores of `rows` rows (q already scaled) against `cols` packed keys (a multiple of 2W).
template <int W, int R>
[[gnu::always_inline]] inline void score_rows(float const* q, std::int64_t d, float const* kp, std::int64_t cols, float* s,
                                              std::int64_t lds) {
  for (std::int64_t c = 0; c < cols; c += 2 * W) score_tile<W, R>(q, d, kp + c, cols, d, s + c, lds);
}

template <int W>
[[gnu::always_inline]] inline void scores(std::int64_t unroll, std::int64_t rows, float const* q, std::int64_t d, float const* kp,
                                          std::int64_t cols, float* s, std::int64_t lds) {
  std::int64_t r = 0;
  // Tiles of `unroll` rows, then the remainder in tiles of 4, 2, 1.
  for (std::int64_t tile : {std::int64_t{8}, std::int64_t{4}, std::int64_t{2}, std::int64_t{1}}) {
    if (tile > unroll) continue;
    for (; r + tile <= rows; r += tile) {
      float const* qr = q + r * d;
      float* sr = s + r * lds;
      if (tile == 8) score_rows<W, 8>(qr, d, kp, cols, sr, lds);
      else if (tile == 4) score_rows<W, 4>(qr, d, kp, cols, sr, lds);
      else if (tile == 2) score_rows<W, 2>(qr, d, kp, cols, sr, lds);
      else score_rows<W, 1>(qr, d, kp, cols, sr, lds);
    }
  }
}

template <int W, int R>
[[gnu::always_inline]] inline void value_rows(float const* p, std::int64_t ldp, float const* v, std::int64_t ldv, std::int64_t n, float* o,
                                              std::int64_t ldo, std::int64_t dv_pad) {
  constexpr int C = value_columns<W, R>();
  std::int64_t c = 0;
  for (; c + C * W <= dv_pad; c += C * W) value_tile<W, R, C>(p, ldp, v + c, ldv, n, o + c, ldo);
  for (; c < dv_pad; c += W) value_tile<W, R, 1>(p, ldp, v + c, ldv, n, o + c, ldo);
}

template <int W>
[[gnu::always_inline]] inline void values(std::int64_t unroll, std::int64_t rows, float const* p, std::int64_t ldp, float const* v,
                                          std::int64_t ldv, std::int64_t n, float* o, std::int64_t ldo, std::int64_t dv_pad) {
  std::int64_t r = 0;
  for (std::int64_t tile : {std::int64_t{8}, std::int64_t{4}, std::int64_t{2}, std::int64_t{1}}) {
    if (tile > unroll) continue;
    for (; r + tile <= rows; r += tile) {
      float const* pr = p + r * ldp;
      float* orow = o + r * ldo;
      if (tile == 8) value_rows<W, 8>(pr, ldp, v, ldv, n, orow, ldo, dv_pad);
      else if (tile == 4) value_rows<W, 4>(pr, ldp, v, ldv, n, orow, ldo, dv_pad);
      else if (tile == 2) value_rows<W, 2>(pr, ldp, v, ldv, n, orow, ldo, dv_pad);
      else value_rows<W, 1>(pr, ldp, v, ldv, n, orow, ldo, dv_pad);
    }
  }
}

// ---- packing --------------------------------------------------------------------------------

/// kp[x][j] = key x of key t0 + j, for n keys, zero up to `cols`: the keys of a block as
/// contiguous vectors whatever the key's layout (walking the source along its unit stride).
inline void pack_keys(Args const& a, std::int64_t b, std::int64_t t0, std::int64_t n, std::int64_t cols, float* kp) {
  AttentionProblem const& p = a.p;
  float const* k = a.k + b * p.k_stride_batch + t0 * p.k_stride_t;
  if (p.k_stride_t == 1) {
    for (std::int64_t x = 0; x < p.d; ++x) {
      std::copy_n(k + x * p.k_stride_d, n, kp + x * cols);
      std::fill(kp + x * cols + n, kp + (x + 1) * cols, 0.f);
    }
    return;
  }
  for (std::int64_t x = 0; x < p.d; ++x) std::fill(kp + x * cols + n, kp + (x + 1) * cols, 0.f);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t x = 0; x < p.d; ++x) kp[x * cols + j] = k[j * p.k_stride_t + x * p.k_stride_d];
}

/// The values of keys t0 .. t0 + n with rows padded to dv_pad when dv is not a multiple of the
/// vector width (else read in place): returns the rows and sets their stride.
inline float const* values_of(Args const& a, std::int64_t b, std::int64_t t0, std::int64_t n, std::int64_t dv_pad, float* vp,
                              std::int64_t& ldv) {
  AttentionProblem const& p = a.p;
  float const* v = a.v + (b * p.tk + t0) * p.dv;
  if (dv_pad == p.dv) {
    ldv = p.dv;
    return v;
  }
  for (std::int64_t j = 0; j < n; ++j) {
    std::copy_n(v + j * p.dv, p.dv, vp + j * dv_pad);
    std::fill(vp + j * dv_pad + p.dv, vp + (j + 1) * dv_pad, 0.f);
  }
  ldv = dv_pad;
  return vp;
}

/// Adds log2(e) x mask to the scores of rows q0 .. q0 + rows, keys t0 .. t0 + n.
inline void add_mask(Args const& a, std::int64_t b, std::int64_t q0, std::int64_t rows, std::int64_t t0, std::int64_t n, float* s,
                     std::int64_t lds) {
  AttentionProblem const& p = a.p;
  float const* m = a.mask + (b / p.mask_inner) * p.mask_stride_outer + (b % p.mask_inner) * p.mask_stride_inner + q0 * p.mask_stride_q +
                   t0 * p.mask_stride_k;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < n; ++j) s[r * lds + j] += log2e * m[r * p.mask_stride_q + j * p.mask_stride_k];
}

// ---- one work item --------------------------------------------------------------------------

/// The queries q0 .. q0 + rows of batch entry b: scores in base 2 (q scaled by scale log2 e),
/// so that the softmax's exponentials are exp2.
template <int W>
[[gnu::always_inline]] inline void attention_item(Args const& a, std::int64_t b, std::int64_t qb, float* ws) {
  AttentionProblem const& p = a.p;
  AttentionConfig const& c = a.c;
  constexpr std::int64_t W2 = 2 * W;
  std::int64_t const q0 = qb * c.block_q, rows = std::min(c.block_q, p.tq - q0);
  std::int64_t const dv_pad = round_up(p.dv, W);
  std::int64_t const bk = std::min(c.block_k, round_up(p.tk, W2));
  float* qp = ws;
  float* kp = qp + a.scratch.q;
  float* vp = kp + a.scratch.k;
  float* s = vp + a.scratch.v;
  float* o = s + a.scratch.s;
  float* row_max = o + a.scratch.o;
  float* row_sum = row_max + c.block_q;

  float const qscale = p.scale * log2e;
  float const* qsrc = a.q + (b * p.tq + q0) * p.d;
  for (std::int64_t i = 0; i < rows * p.d; ++i) qp[i] = qsrc[i] * qscale;
  std::fill(o, o + rows * dv_pad, 0.f);
  float const ninf = -std::numeric_limits<float>::infinity();

  if (c.sketch == AttentionSketch::streamed) {
    std::fill(row_max, row_max + rows, ninf);
    std::fill(row_sum, row_sum + rows, 0.f);
    for (std::int64_t t0 = 0; t0 < p.tk; t0 += bk) {
      std::int64_t const n = std::min(bk, p.tk - t0), cols = round_up(n, W2);
      pack_keys(a, b, t0, n, cols, kp);
      scores<W>(c.unroll, rows, qp, p.d, kp, cols, s, cols);
      if (p.has_mask) add_mask(a, b, q0, rows, t0, n, s, cols);
      // Online softmax (FlashAttention, Alg. 1 lines 9-12): the block's maximum joins the
      // running one; what was summed and accumulated under the old maximum is rescaled.
      for (std::int64_t r = 0; r < rows; ++r) {
        float* sr = s + r * cols;
        std::fill(sr + n, sr + cols, ninf);
        simd::vf<W> mv = simd::load<W>(sr);
        for (std::int64_t j = W; j < cols; j += W) {
          simd::vf<W> x = simd::load<W>(sr + j);
          mv = x > mv ? x : mv;
        }
        float const m_new = std::max(row_max[r], simd::max_of<W>(mv));
        if (m_new == ninf) {  // every score so far masked out: nothing to add
          std::fill(sr, sr + cols, 0.f);
          continue;
        }
        simd::vf<W> sum{};
        for (std::int64_t j = 0; j < cols; j += W) {
          simd::vf<W> e = simd::exp2<W>(simd::load<W>(sr + j) - m_new);
          simd::store<W>(sr + j, e);
          sum += e;
        }
        float const correction = std::exp2(row_max[r] - m_new);  // 0 while the old maximum was -inf
        row_sum[r] = row_sum[r] * correction + simd::sum_of<W>(sum);
        row_max[r] = m_new;
        if (correction != 1.f)
          for (std::int64_t j = 0; j < dv_pad; j += W) simd::store<W>(o + r * dv_pad + j, simd::load<W>(o + r * dv_pad + j) * correction);
      }
      std::int64_t ldv = 0;
      float const* vb = values_of(a, b, t0, n, dv_pad, vp, ldv);
      values<W>(c.unroll, rows, s, cols, vb, ldv, n, o, dv_pad, dv_pad);
    }
  } else {
    std::int64_t const lds = round_up(p.tk, W2);
    for (std::int64_t t0 = 0; t0 < p.tk; t0 += bk) {
      std::int64_t const n = std::min(bk, p.tk - t0), cols = round_up(n, W2);
      pack_keys(a, b, t0, n, cols, kp);
      scores<W>(c.unroll, rows, qp, p.d, kp, cols, s + t0, lds);
      if (p.has_mask) add_mask(a, b, q0, rows, t0, n, s + t0, lds);
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      float* sr = s + r * lds;
      std::fill(sr + p.tk, sr + lds, ninf);
      simd::vf<W> mv = simd::load<W>(sr);
      for (std::int64_t j = W; j < lds; j += W) {
        simd::vf<W> x = simd::load<W>(sr + j);
        mv = x > mv ? x : mv;
      }
      float const m = simd::max_of<W>(mv);
      simd::vf<W> sum{};
      for (std::int64_t j = 0; j < lds; j += W) {
        simd::vf<W> e = simd::exp2<W>(simd::load<W>(sr + j) - m);  // all -inf: -inf - -inf is NaN, as the unfused softmax gives
        simd::store<W>(sr + j, e);
        sum += e;
      }
      row_sum[r] = simd::sum_of<W>(sum);
    }
    for (std::int64_t t0 = 0; t0 < p.tk; t0 += bk) {
      std::int64_t const n = std::min(bk, p.tk - t0);
      std::int64_t ldv = 0;
      float const* vb = values_of(a, b, t0, n, dv_pad, vp, ldv);
      values<W>(c.unroll, rows, s + t0, lds, vb, ldv, n, o, dv_pad, dv_pad);
    }
  }
  float* dst = a.out + (b * p.tq + q0) * p.dv;
  for (std::int64_t r = 0; r < rows; ++r) {
    float const inv = 1.f / row_sum[r];  // 0 when every score was masked out: NaN, as the unfused softmax gives
    for (std::int64_t j = 0; j < p.dv; ++j) dst[r * p.dv + j] = o[r * dv_pad + j] * inv;
  }
}

// One work item per vector width, each compiled for the instructions that width needs.
__attribute__((target("avx512f,avx2,fma"))) void attention_item_16(Args const& a, std::int64_t b, std::int64_t qb, float* ws) {
  attention_item<16>(a, b, qb, ws);
}
__attribute__((target("avx2,fma"))) void attention_item_8(Args const& a, std::int64_t b, std::int64_t qb, float* ws) {
  attention_item<8>(a, b, qb, ws);
}
void attention_item_4(Args const& a, std::int64_t b, std::int64_t qb, float* ws) { attention_item<4>(a, b, qb, ws); }

std::string problem_error(AttentionProblem const& p, std::string const& why) { return p.to_string() + ": " + why; }

}  // namespace

// ---- the problem ----------------------------------------------------------------------------

AttentionProblem AttentionProblem::transposed_keys(std::int64_t batch, std::int64_t tq, std::int64_t tk, std::int64_t d, std::int64_t dv,
                                                   float scale) {
  return {.batch = batch, .tq = tq, .tk = tk, .d = d, .dv = dv, .scale = scale, .k_stride_batch = d * tk, .k_stride_d = tk, .k_stride_t = 1};
}

AttentionProblem AttentionProblem::row_keys(std::int64_t batch, std::int64_t tq, std::int64_t tk, std::int64_t d, std::int64_t dv, float scale) {
  return {.batch = batch, .tq = tq, .tk = tk, .d = d, .dv = dv, .scale = scale, .k_stride_batch = d * tk, .k_stride_d = 1, .k_stride_t = d};
}

AttentionProblem AttentionProblem::with_mask(std::int64_t inner, std::int64_t stride_outer, std::int64_t stride_inner, std::int64_t stride_q,
                                             std::int64_t stride_k) const {
  AttentionProblem m = *this;
  m.has_mask = true;
  m.mask_inner = inner;
  m.mask_stride_outer = stride_outer;
  m.mask_stride_inner = stride_inner;
  m.mask_stride_q = stride_q;
  m.mask_stride_k = stride_k;
  return m;
}

std::string AttentionProblem::to_string() const {
  std::ostringstream s;
  s << "attention b=" << batch << " tq=" << tq << " tk=" << tk << " d=" << d << " dv=" << dv;
  if (k_stride_t == 1 && k_stride_d == tk && k_stride_batch == d * tk) s << " k=[d,tk]";
  else if (k_stride_d == 1 && k_stride_t == d && k_stride_batch == d * tk) s << " k=[tk,d]";
  else s << " k_strides=(" << k_stride_batch << "," << k_stride_d << "," << k_stride_t << ")";
  if (!has_mask) s << " mask=none";
  else
    s << " mask_strides=(" << mask_stride_outer << "/" << mask_inner << "," << mask_stride_inner << "," << mask_stride_q << "," << mask_stride_k
      << ")";
  return s.str();
}

void check(AttentionProblem const& p) {
  if (p.batch < 1 || p.tq < 1 || p.tk < 1 || p.d < 1 || p.dv < 1)
    throw Error(problem_error(p, "batch, tq, tk, d and dv must be >= 1"));
  if (!std::isfinite(p.scale)) throw Error(problem_error(p, "scale " + std::to_string(p.scale) + " is not finite"));
  if (p.k_stride_d < 0 || p.k_stride_t < 0 || p.k_stride_batch < 0 || (p.d > 1 && p.k_stride_d == 0) || (p.tk > 1 && p.k_stride_t == 0))
    throw Error(problem_error(p, "key strides must be >= 0 and non-zero along d and tk (they would read one key for all)"));
  if (p.has_mask) {
    if (p.mask_inner < 1 || p.batch % p.mask_inner != 0)
      throw Error(problem_error(p, "the mask's inner batch count " + std::to_string(p.mask_inner) + " does not divide batch " +
                                       std::to_string(p.batch)));
    if (p.mask_stride_outer < 0 || p.mask_stride_inner < 0 || p.mask_stride_q < 0 || p.mask_stride_k < 0)
      throw Error(problem_error(p, "mask strides must be >= 0"));
  }
}

// ---- the space ------------------------------------------------------------------------------

namespace {
std::vector<std::int64_t> thread_counts() {
  std::vector<std::int64_t> t;
  int const cores = available_cores();
  for (std::int64_t n = 1; n < cores; n *= 2) t.push_back(n);
  t.push_back(cores);
  return t;
}
}  // namespace

std::vector<tuning::Knob> Attention::knobs(Problem const&) {
  std::vector<std::int64_t> widths;
  for (std::int64_t w : {4, 8, 16})
    if (simd::cpu_supports_width(w)) widths.push_back(w);
  return {{"sketch", {0, 1}},
          {"block_q", {8, 16, 32, 64}},
          {"block_k", {32, 64, 128, 256}},
          {"vector_width", widths},
          {"unroll", {1, 2, 4, 8}},
          {"threads", thread_counts()}};
}

AttentionConfig Attention::config(Problem const& p, tuning::Choice const& ch) {
  auto ks = knobs(p);
  if (ch.size() != ks.size())
    throw Error("attention: a choice has " + std::to_string(ch.size()) + " indices, the space " + std::to_string(ks.size()) + " knobs");
  auto value = [&](std::size_t i) {
    if (ch[i] >= ks[i].values.size())
      throw Error("attention: choice index " + std::to_string(ch[i]) + " of knob " + ks[i].name + " is past its " +
                  std::to_string(ks[i].values.size()) + " values");
    return ks[i].values[ch[i]];
  };
  return {.sketch = value(0) == 0 ? AttentionSketch::streamed : AttentionSketch::whole_row,
          .block_q = value(1),
          .block_k = value(2),
          .vector_width = value(3),
          .unroll = value(4),
          .threads = value(5)};
}

std::string Attention::why_invalid(Problem const& p, Config const& c) {
  auto str = [](std::int64_t x) { return std::to_string(x); };
  if (c.vector_width != 4 && c.vector_width != 8 && c.vector_width != 16) return "vector_width " + str(c.vector_width) + " is not 4, 8 or 16";
  if (!simd::cpu_supports_width(c.vector_width)) return "this CPU has no " + str(c.vector_width) + "-lane float vectors";
  if (c.unroll != 1 && c.unroll != 2 && c.unroll != 4 && c.unroll != 8) return "unroll " + str(c.unroll) + " is not 1, 2, 4 or 8";
  if (c.block_q < 1) return "block_q " + str(c.block_q) + " < 1";
  if (c.unroll > c.block_q) return "unroll " + str(c.unroll) + " > block_q " + str(c.block_q) + " (no register tile would be full)";
  if (c.block_k < 1 || c.block_k % (2 * c.vector_width) != 0)
    return "block_k " + str(c.block_k) + " is not a multiple of 2 x vector_width " + str(c.vector_width);
  if (c.threads < 1 || c.threads > available_cores()) return "threads " + str(c.threads) + " outside 1 .. " + str(available_cores()) + " cores";
  if (c.sketch == AttentionSketch::whole_row) {
    std::int64_t bytes = c.block_q * round_up(p.tk, 2 * c.vector_width) * std::int64_t{sizeof(float)};
    if (bytes > score_buffer_limit)
      return "whole_row: block_q " + str(c.block_q) + " x tk " + str(p.tk) + " scores take " + str(bytes) + " bytes > " +
             str(score_buffer_limit) + " (L2)";
  }
  return {};
}

std::vector<float> Attention::features(Problem const& p, Config const& c) {
  std::int64_t const items = p.batch * ceil_div(p.tq, c.block_q);
  std::int64_t const bk = std::min(c.block_k, round_up(p.tk, 2 * c.vector_width));
  std::int64_t const k_blocks = ceil_div(p.tk, bk);
  std::int64_t cols = 0;  // scores computed per query row, padding included
  for (std::int64_t t0 = 0; t0 < p.tk; t0 += bk) cols += round_up(std::min(bk, p.tk - t0), 2 * c.vector_width);
  double const bq = static_cast<double>(p.batch * p.tq);
  double const flops = bq * static_cast<double>(p.tk) * (2.0 * static_cast<double>(p.d + p.dv) + 4.0);  // two products, exp, sum, max
  double bytes = 4.0 * static_cast<double>(p.batch) * static_cast<double>(p.tq * p.d + p.tk * p.d + p.tk * p.dv + p.tq * p.dv);
  if (p.has_mask) bytes += 4.0 * bq * static_cast<double>(p.tk);
  return {static_cast<float>(flops),
          static_cast<float>(bytes),
          static_cast<float>(c.block_q),
          static_cast<float>(c.block_k),
          static_cast<float>(c.vector_width),
          static_cast<float>(c.unroll),
          static_cast<float>(c.threads),
          c.sketch == AttentionSketch::whole_row ? 1.f : 0.f,
          static_cast<float>(items),
          static_cast<float>(ceil_div(items, c.threads)),
          static_cast<float>(k_blocks),
          static_cast<float>(static_cast<double>(cols) / static_cast<double>(p.tk)),
          static_cast<float>(scratch_of(p, c).total * std::int64_t{sizeof(float)}),
          static_cast<float>(p.tq),
          static_cast<float>(p.tk),
          static_cast<float>(p.d),
          static_cast<float>(p.dv)};
}

AttentionConfig Attention::default_config(Problem const&) {
  std::int64_t width = simd::cpu_supports_width(16) ? 16 : simd::cpu_supports_width(8) ? 8 : 4;
  return {.sketch = AttentionSketch::streamed, .block_q = 16, .block_k = 64, .vector_width = width, .unroll = 4, .threads = available_cores()};
}

std::string Attention::to_string(Config const& c) {
  std::ostringstream s;
  s << (c.sketch == AttentionSketch::streamed ? "streamed" : "whole_row") << " bq=" << c.block_q << " bk=" << c.block_k << " w=" << c.vector_width
    << " unroll=" << c.unroll << " threads=" << c.threads;
  return s.str();
}

// ---- running --------------------------------------------------------------------------------

std::size_t attention_workspace_floats(AttentionProblem const& p, AttentionConfig const& c) {
  return static_cast<std::size_t>(scratch_of(p, c).total * std::max<std::int64_t>(c.threads, 1));
}

void attention(AttentionProblem const& p, AttentionConfig const& c, float const* q, float const* k, float const* v, float const* mask,
               float* out, std::span<float> workspace) {
  check(p);
  if (std::string why = Attention::why_invalid(p, c); !why.empty()) throw Error(p.to_string() + ": config " + Attention::to_string(c) + ": " + why);
  if (!q || !k || !v || !out) throw Error(problem_error(p, "a null q, k, v or out pointer"));
  if ((mask != nullptr) != p.has_mask) throw Error(problem_error(p, p.has_mask ? "the mask pointer is null" : "a mask pointer without has_mask"));
  if (workspace.size() < attention_workspace_floats(p, c))
    throw Error(problem_error(p, "workspace of " + std::to_string(workspace.size()) + " floats < " +
                                     std::to_string(attention_workspace_floats(p, c)) + " needed"));
  Args const a{p, c, q, k, v, mask, out, scratch_of(p, c)};
  void (*item)(Args const&, std::int64_t, std::int64_t, float*) =
      c.vector_width == 16 ? attention_item_16 : c.vector_width == 8 ? attention_item_8 : attention_item_4;
  std::int64_t const q_blocks = ceil_div(p.tq, c.block_q), items = p.batch * q_blocks;
  float* ws = workspace.data();
  if (c.threads == 1) {
    for (std::int64_t i = 0; i < items; ++i) item(a, i / q_blocks, i % q_blocks, ws);
    return;
  }
#pragma omp parallel for num_threads(static_cast<int>(c.threads)) schedule(static)
  for (std::int64_t i = 0; i < items; ++i) item(a, i / q_blocks, i % q_blocks, ws + omp_get_thread_num() * a.scratch.total);
}

}  // namespace autograph::cpu::tuned
