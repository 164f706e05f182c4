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
#include "space_helpers.hpp"

namespace autograph::cpu::tuned {

namespace {

constexpr float log2e = 1.4426950408889634f;
constexpr std::int64_t score_buffer_limit = 256 * 1024;  // bytes: every x86-64 core since 2008 has an L2 this size or larger


/// Per-thread scratch, in floats, each part rounded to 16 floats (a cache line).
struct Scratch {
  std::int64_t q, k, v, s, o, stats, total;
};
Scratch scratch_of(AttentionProblem const& p, AttentionConfig const& c) {
  std::int64_t const w2 = 2 * c.vector_width;
  std::int64_t const dv_pad = round_up(p.dv, c.vector_width);
  std::int64_t const bk = std::min(c.block_k, round_up(p.tk, w2));
  std::int64_t const s_cols = c.sketch == AttentionSketch::whole_row ? round_up(p.tk, c.vector_width) : bk;
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

// ---- packing --------------------------------------------------------------------------------

/// kp[x][j] = element x of key t0 + j, for n keys, zero up to `cols`, walking the source along
/// its unit stride.
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

// The work item once per instruction set: AVX-512 (16 lanes), AVX2 with FMA (8), and SSE2 (4,
// every x86-64), each in its own target region and namespace (simd.hpp says why).
using simd::vf;
using simd::vi;
#define AUTOGRAPH_TUNED_KERNEL "attention_item.inc"
#include "isa_variants.inc"

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
    std::int64_t bytes = c.block_q * round_up(p.tk, c.vector_width) * std::int64_t{sizeof(float)};
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
  for (std::int64_t t0 = 0; t0 < p.tk; t0 += bk) cols += round_up(std::min(bk, p.tk - t0), c.vector_width);
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

AttentionConfig Attention::default_config(Problem const& p) {
  std::int64_t const width = simd::cpu_supports_width(16) ? 16 : simd::cpu_supports_width(8) ? 8 : 4;
  // The register tile of the score product: unroll rows by 2 key vectors, unroll x 2
  // accumulators and 2 key vectors; 8 x 2 + 2 = 18 fit AVX-512's 32 vector registers, 4 x 2 + 2
  // = 10 the 16 of AVX2 and SSE. The taller tile loads a key vector once for more rows.
  std::int64_t const unroll = width == 16 ? 8 : 4;
  AttentionConfig c{.sketch = AttentionSketch::whole_row, .block_q = 16, .block_k = 64, .vector_width = width, .unroll = unroll,
                    .threads = available_cores()};
  // whole_row while a block's score rows fit the L2 bound it is valid under (block_q x tk
  // floats <= 256 KiB: up to 4096 keys at 16 queries, DETR's 1050 and SETR's 577 included): one
  // exact softmax per row, where streamed finds a running maximum and rescales the accumulator
  // per key block. Past it, streamed, whose scratch does not grow with tk.
  if (!is_valid(p, c)) c.sketch = AttentionSketch::streamed;
  return c;
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
      c.vector_width == 16 ? avx512::attention_item<16> : c.vector_width == 8 ? avx2::attention_item<8> : sse2::attention_item<4>;
  std::int64_t const q_blocks = ceil_div(p.tq, c.block_q), items = p.batch * q_blocks;
  float* ws = workspace.data();
  std::int64_t const threads = loop_threads(c.threads);
  if (threads == 1) {
    for (std::int64_t i = 0; i < items; ++i) item(a, i / q_blocks, i % q_blocks, ws);
    return;
  }
#pragma omp parallel for num_threads(static_cast<int>(threads)) schedule(static)
  for (std::int64_t i = 0; i < items; ++i) item(a, i / q_blocks, i % q_blocks, ws + omp_get_thread_num() * a.scratch.total);
}

}  // namespace autograph::cpu::tuned
