#pragma once
// Fused attention on the CPU with explicit tile parameters (issue 18; AutoGTCO, Sec. IV-D):
//
//   out = softmax(scale * q @ kT + mask) @ v,   q [B, Tq, D], kT [B, D, Tk], v [B, Tk, Dv]
//
// computed without ever writing the [Tq, Tk] score matrix to memory. Two sketches (tile
// structures) of the same computation:
// - streamed: per block of block_q queries, the keys and values stream through in blocks of
//   block_k; a running row maximum and sum rescale the output accumulator whenever the maximum
//   grows (the online softmax of FlashAttention, Dao et al. 2022, Alg. 1), so the scratch is
//   block_q x block_k scores whatever Tk is;
// - whole_row: per block of queries, all Tk scores of the block in a small buffer (block_q x
//   Tk), then an exact softmax and one pass over the values: no rescaling, valid only while that
//   buffer stays in the core's L2 (256 KiB: up to 4096 keys at 16 queries a block, so ViT's
//   197 tokens, SETR's 577 and DETR's 1050; the K and V of a head, 269 KB at DETR's, stay in a
//   1 MiB L2 beside it while a thread's items walk that head's query blocks).
// Both tile the inner products into register tiles of `unroll` query rows by vectors of
// `vector_width` lanes (SSE, AVX2 or AVX-512, as the CPU has them), and run the (batch x
// query-block) items on `threads` OpenMP threads.
//
// Plain functions over pointers and a problem description, not tied to an operator type: a
// cpu::Kernel<> wires them to an op (its runner calls attention() with its bound pointers and a
// workspace it asked for in prepare()). Attention models tuning::TunableKernel.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "autograph/tuning/space.hpp"

namespace autograph::cpu::tuned {

/// One attention computation: `batch` independent (Tq x Tk) problems (the product of the
/// leading dims, e.g. batch x heads). q, v and out are dense row-major: q [batch, tq, d],
/// v [batch, tk, dv], out [batch, tq, dv]. The key is read through element strides, so that
/// kT [batch, d, tk] (the key transposed, the op's layout) and k [batch, tk, d] both work.
/// The mask, when present, is read through strides too: 0 broadcasts a dimension; its leading
/// (batch) index is split as b = outer * mask_inner + inner, so that a [B, 1, Tq, Tk] mask over
/// [B, H] has mask_inner = H, mask_stride_inner = 0.
struct AttentionProblem {
  std::int64_t batch = 1, tq = 0, tk = 0, d = 0, dv = 0;
  float scale = 1.f;
  std::int64_t k_stride_batch = 0, k_stride_d = 0, k_stride_t = 0;
  bool has_mask = false;
  std::int64_t mask_inner = 1, mask_stride_outer = 0, mask_stride_inner = 0, mask_stride_q = 0, mask_stride_k = 0;

  /// The key as the FusedAttention op holds it: kT [batch, d, tk], dense.
  static AttentionProblem transposed_keys(std::int64_t batch, std::int64_t tq, std::int64_t tk, std::int64_t d, std::int64_t dv, float scale);
  /// The key untransposed: k [batch, tk, d], dense.
  static AttentionProblem row_keys(std::int64_t batch, std::int64_t tq, std::int64_t tk, std::int64_t d, std::int64_t dv, float scale);
  /// A mask with these strides (elements; 0 broadcasts).
  AttentionProblem with_mask(std::int64_t inner, std::int64_t stride_outer, std::int64_t stride_inner, std::int64_t stride_q,
                             std::int64_t stride_k) const;
  /// "attention b=12 tq=197 tk=197 d=64 dv=64 k=[d,tk] mask=none": how errors and logs name it.
  std::string to_string() const;
};

/// The tile structure (AutoGTCO's sketch).
enum class AttentionSketch : std::uint8_t { streamed, whole_row };

/// A point of the space: the annotation of a sketch.
struct AttentionConfig {
  AttentionSketch sketch = AttentionSketch::streamed;
  std::int64_t block_q = 16;      // queries per work item (rows of the score tile)
  std::int64_t block_k = 64;      // keys per streamed block; a multiple of 2 * vector_width
  std::int64_t vector_width = 8;  // float lanes: 4 (SSE), 8 (AVX2+FMA), 16 (AVX-512)
  std::int64_t unroll = 4;        // query rows per register tile: 1, 2, 4 or 8
  std::int64_t threads = 1;       // OpenMP threads over the batch x query-block items
  bool operator==(AttentionConfig const&) const = default;
};

/// The fused attention kernel family.
struct Attention {
  using Problem = AttentionProblem;
  using Config = AttentionConfig;
  static constexpr std::string_view name = "attention";

  /// sketch {streamed, whole_row}, block_q {8, 16, 32, 64}, block_k {32, 64, 128, 256},
  /// vector_width (the widths this CPU runs), unroll {1, 2, 4, 8}, threads (1, powers of two,
  /// and every core). Some points are invalid for a problem (is_valid says which).
  static std::vector<tuning::Knob> knobs(Problem const& p);
  /// @pre ch has one index per knob, each within its knob's values (else autograph::Error).
  static Config config(Problem const& p, tuning::Choice const& ch);
  static bool is_valid(Problem const& p, Config const& c) { return why_invalid(p, c).empty(); }
  /// Empty when valid; otherwise why not ("block_k 48 is not a multiple of 2 x vector_width 16").
  static std::string why_invalid(Problem const& p, Config const& c);
  /// For a learned cost model, in this order: flops, bytes read and written, block_q, block_k,
  /// vector_width, unroll, threads, sketch (0 streamed, 1 whole_row), work items, items per
  /// thread, key blocks per item, computed/needed score ratio (padding), scratch bytes per
  /// thread, tq, tk, d, dv.
  static std::vector<float> features(Problem const& p, Config const& c);
  /// Untuned: block_q 16, block_k 64, the widest vectors, every core; whole_row while the
  /// block's 16 x tk scores fit its 256 KiB bound (tk <= 4096), else streamed; unroll 8 with
  /// AVX-512, else 4. Sized from the problem and the register file, not fitted: at d = 64 a
  /// 64-key block of keys (16 KiB) and values (16 KiB) with the 16 x 64 scores (4 KiB) fit a
  /// 48 KiB L1 data cache; `unroll` rows by 2 vectors keep the 2 x unroll accumulators and 2 key
  /// vectors of the score tile in the registers (18 of AVX-512's 32, 10 of AVX2's 16); whole_row
  /// skips the streamed sketch's per-block rescaling (benchmark/README-tuned.md measures both).
  static Config default_config(Problem const& p);
  static std::string signature(Problem const& p) { return p.to_string(); }
  static std::string to_string(Config const& c);
};

/// Throws autograph::Error naming the problem when it is not one (sizes < 1, d > 0 but strides
/// that read nothing, a mask split that does not divide the batch).
void check(AttentionProblem const& p);

/// Scratch the kernel needs (floats, every thread's together).
std::size_t attention_workspace_floats(AttentionProblem const& p, AttentionConfig const& c);

/// out = softmax(scale * q @ kT + mask) @ v. A row whose scores are all -inf (masked out)
/// gives NaN, as the unfused softmax does (0 / 0). Allocates nothing.
/// @pre workspace.size() >= attention_workspace_floats(p, c); mask is null iff !p.has_mask.
/// @throws autograph::Error for an invalid problem or config (naming it) or a short workspace.
void attention(AttentionProblem const& p, AttentionConfig const& c, float const* q, float const* k, float const* v, float const* mask,
               float* out, std::span<float> workspace);

}  // namespace autograph::cpu::tuned
