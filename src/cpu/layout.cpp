// The data movement ops: Concat, Split, Transpose, Slice, Pad and Enlarge as oneDNN reorders
// between strided views (a reorder copies any strides to any strides);
// Resize with the reference's tap tables (runtime/cpu/resize.hpp), axis by axis, straight
// into the output: oneDNN's resampling rounds its coordinates its own way.
#include <algorithm>
#include <memory>
#include <optional>

#include "autograph/runtime/cpu/resize.hpp"
#include "autograph/runtime/cpu/strided.hpp"
#include "primitive.hpp"

namespace autograph::cpu::builtin {
namespace {

using namespace detail;

/// A strided view of one of the node's tensors: the element at index i is at
/// offset + sum_d i_d * strides[d] (in floats).
struct View {
  From from;
  std::size_t index;
  Strides strides;
  std::int64_t offset = 0;
};

/// Registers to = from over the index space `shape` as a oneDNN reorder, or our strided loop
/// where oneDNN has no reorder for those strides.
void run_strided_copy(Preparation& p, std::string const& what, Shape const& shape, View const& from, View const& to) {
  if (shape.numel() == 0) return;
  // Size-1 dimensions dropped and dimensions both sides walk as one merged (as for_each_index).
  Dims dims, src, dst;
  for (std::size_t d = 0; d < shape.rank(); ++d) {
    if (shape[d] == 1) continue;
    if (!dims.empty() && src.back() == from.strides[d] * shape[d] && dst.back() == to.strides[d] * shape[d]) {
      dims.back() *= shape[d];
      src.back() = from.strides[d];
      dst.back() = to.strides[d];
      continue;
    }
    dims.push_back(shape[d]);
    src.push_back(from.strides[d]);
    dst.push_back(to.strides[d]);
  }
  if (dims.empty()) dims = src = dst = {1};
  std::optional<dnnl::reorder::primitive_desc> pd;
  try {
    ThreadScope threads(p.threads());
    pd.emplace(engine(), strided(dims, src), engine(), strided(dims, dst), user_scratchpad());
  } catch (dnnl::error const&) {  // our loop below does every stride
  }
  if (pd) {
    run_primitive<dnnl::reorder>(p, "reorder (" + what + ")", *pd,
                  {{DNNL_ARG_FROM, pd->src_desc(), from.from, from.index, from.offset * std::int64_t{sizeof(float)}},
                   {DNNL_ARG_TO, pd->dst_desc(), to.from, to.index, to.offset * std::int64_t{sizeof(float)}}});
    return;
  }
  p.run(what + " (own strided copy)", [shape, from, to](Io const& io) -> Runner {
    float const* x = (from.from == From::input ? io.in[from.index] : io.out[from.index]) + from.offset;
    float* y = io.out[to.index] + to.offset;
    return [shape, from, to, x, y] { cpu::copy_strided(shape, x, from.strides, y, to.strides); };
  });
}

/// Output 0 filled with `value`, input 0 copied in at offset before[d] along each dimension d.
void run_place(Preparation& p, std::string const& what, std::span<std::int64_t const> before, float value) {
  Shape const& xs = p.inputs()[0].shape;
  Shape const& ys = p.outputs()[0].shape;
  Strides yst = strides_of(ys);
  std::int64_t origin = 0;
  for (std::size_t d = 0; d < ys.rank(); ++d) origin += before[d] * yst[d];
  if (xs.numel() != ys.numel()) run_fill(p, "fill", 0, value);  // nothing to fill when no padding was added
  run_strided_copy(p, what, xs, {From::input, 0, strides_of(xs)}, {From::output, 0, yst, origin});
}

/// One axis of a resize: src (shape `from`) to dst, axis `axis` resampled by `taps`, exactly
/// as cpu::resize_axis computes it (double accumulation in the same order), lines split
/// among the threads.
void resize_axis_into(Resize const& op, Shape const& from, std::size_t axis, std::int64_t n_out, cpu::ResizeTaps const& taps, float const* src,
                      float* dst, int threads) {
  std::int64_t n_in = from[axis], inner = 1, outer = 1;
  for (std::size_t d = axis + 1; d < from.rank(); ++d) inner *= from[d];
  for (std::size_t d = 0; d < axis; ++d) outer *= from[d];
  parallel_for(threads, outer * n_out, [&](std::int64_t l0, std::int64_t l1) {
    for (std::int64_t l = l0; l < l1; ++l) {
      std::int64_t o = l / n_out, j = l % n_out;
      float* line = dst + l * inner;
      if (taps.outside[static_cast<std::size_t>(j)]) {
        std::fill(line, line + inner, op.extrapolation_value);
        continue;
      }
      std::size_t at = static_cast<std::size_t>(j) * taps.taps;
      for (std::int64_t i = 0; i < inner; ++i) {
        double acc = 0;
        for (std::size_t k = 0; k < taps.taps; ++k) {
          double w = taps.weight[at + k];
          if (w == 0) continue;
          acc += w * src[(o * n_in + taps.index[at + k]) * inner + i];
        }
        line[i] = static_cast<float>(acc);
      }
    }
  });
}

}  // namespace

/// Each input reordered into its slab of the output. (oneDNN's concat primitive, simple:any in
/// 2.6.3, took 0.30 ms to concatenate four [1, 64, 28, 28] inputs along the channels on one
/// core; the four reorders take 0.02 ms, as Split's do.)
void prepare(Concat const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  Shape const& ys = p.outputs()[0].shape;
  std::size_t a = ys.normalize_axis(op.axis);
  Strides yst = layout_strides(ys, p.output_layout(0));
  std::int64_t at = 0;
  for (std::size_t i = 0; i < p.inputs().size(); ++i) {
    Shape const& piece = p.inputs()[i].shape;
    run_strided_copy(p, "concat", piece, {From::input, i, layout_strides(piece, p.input_layout(i))}, {From::output, 0, yst, at * yst[a]});
    at += piece[a];
  }
}

void prepare(Split const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  Shape const& xs = p.inputs()[0].shape;
  std::size_t a = xs.normalize_axis(op.axis);
  Strides xst = strides_of(xs);
  std::int64_t at = 0;
  for (std::size_t o = 0; o < p.outputs().size(); ++o) {
    Shape const& piece = p.outputs()[o].shape;
    run_strided_copy(p, "split", piece, {From::input, 0, xst, at * xst[a]}, {From::output, o, strides_of(piece)});
    at += piece[a];
  }
}

void prepare(Transpose const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  Shape const& ys = p.outputs()[0].shape;
  Strides xst = strides_of(p.inputs()[0].shape), src{};
  for (std::size_t i = 0; i < op.perm.size(); ++i) src[i] = xst[static_cast<std::size_t>(op.perm[i])];  // output dim i reads input dim perm[i]
  run_strided_copy(p, "transpose", ys, {From::input, 0, src}, {From::output, 0, strides_of(ys)});
}

void prepare(Slice const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  Shape const& xs = p.inputs()[0].shape;
  Shape const& ys = p.outputs()[0].shape;
  auto ranges = op.ranges(xs);
  Strides xst = strides_of(xs), src{};
  std::int64_t origin = 0;
  for (std::size_t d = 0; d < xs.rank(); ++d) {
    origin += ranges[d].start * xst[d];
    src[d] = ranges[d].step * xst[d];
  }
  run_strided_copy(p, "slice", ys, {From::input, 0, src, origin}, {From::output, 0, strides_of(ys)});
}

void prepare(Pad const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  run_place(p, "pad", std::span(op.pads).first(p.inputs()[0].shape.rank()), op.value);
}

void prepare(Enlarge const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  Shape const& ws = p.inputs()[0].shape;
  std::int64_t before[] = {0, 0, (op.kernel[0] - ws[2]) / 2, (op.kernel[1] - ws[3]) / 2};
  run_place(p, "enlarge", before, 0.f);
}

void prepare(Resize const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  Shape const& xs = p.inputs()[0].shape;
  Shape const& ys = p.outputs()[0].shape;
  // The axes the reference resamples (the others it leaves as they are), with their taps.
  struct Pass {
    std::size_t axis;
    Shape from;
    cpu::ResizeTaps taps;
  };
  auto passes = std::make_shared<std::vector<Pass>>();
  Shape cur = xs;
  std::size_t largest = 0;  // the largest intermediate, in floats
  for (std::size_t d = 0; d < xs.rank(); ++d) {
    bool unchanged = ys[d] == xs[d] && op.scale(d, xs[d]) == 1.0 && op.coordinate != ResizeCoordinate::tf_half_pixel_for_nn &&
                     (op.coordinate != ResizeCoordinate::tf_crop_and_resize || (op.roi[d] == 0 && op.roi[xs.rank() + d] == 1));
    if (unchanged) continue;
    passes->push_back({d, cur, cpu::resize_taps(op, d, xs[d], ys[d])});
    cur[d] = ys[d];
    largest = std::max(largest, static_cast<std::size_t>(cur.numel()));
  }
  if (passes->empty()) return run_copy(p, "copy (a resize that changes nothing)", 0, 0);
  // Intermediates alternate between two workspaces; the last pass writes the output.
  std::size_t ping = passes->size() > 1 ? p.workspace(largest * sizeof(float)) : 0;
  std::size_t pong = passes->size() > 2 ? p.workspace(largest * sizeof(float)) : 0;
  int threads = p.threads();
  p.run("resize (own loop, the reference's taps)", [op, passes, ping, pong, ys, threads](Io const& io) -> Runner {
    float const* x = io.in[0];
    float* y = io.out[0];
    std::vector<float*> targets;  // where each pass writes
    for (std::size_t k = 0; k < passes->size(); ++k)
      targets.push_back(k + 1 == passes->size() ? y : static_cast<float*>(io.workspace[k % 2 == 0 ? ping : pong]));
    return [op, passes, targets, x, ys, threads] {
      float const* src = x;
      for (std::size_t k = 0; k < passes->size(); ++k) {
        Pass const& pass = (*passes)[k];
        resize_axis_into(op, pass.from, pass.axis, ys[pass.axis], pass.taps, src, targets[k], threads);
        src = targets[k];
      }
    };
  });
}

}  // namespace autograph::cpu::builtin
