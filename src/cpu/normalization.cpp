// Normalisations and reductions: BatchNorm (our per-channel affine loop, any layout), and on
// oneDNN LayerNorm (layer_normalization over the trailing axes as one), AddLayerNorm
// (a binary add, then layer_normalization of the sum), Softmax,
// Pool2D (pooling; 1x1 windows are our strided copy) and Reduce (reduction).
#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "autograph/runtime/cpu/strided.hpp"
#include "batch_norm_channels.hpp"
#include "primitive.hpp"

namespace autograph::cpu::builtin {
namespace {

using namespace detail;
using dnnl::algorithm;
using dnnl::normalization_flags;
using dnnl::prop_kind;

std::int64_t product(Shape const& s, std::size_t begin, std::size_t end) {
  std::int64_t n = 1;
  for (std::size_t d = begin; d < end; ++d) n *= s[d];
  return n;
}

/// Average pooling as the reference computes it, for the windows oneDNN divides otherwise:
/// count_include_pad where a ceil-mode window runs past the end padding (the reference
/// divides by the part inside the padded input, oneDNN by the whole kernel).
void average_pool(Pool2D const& op, Shape const& xs, Shape const& ys, float const* x, float* y, int threads) {
  std::int64_t H = xs[2], W = xs[3], Ho = ys[2], Wo = ys[3];
  parallel_for(threads, xs[0] * xs[1], [&](std::int64_t p0, std::int64_t p1) {
    for (std::int64_t plane = p0; plane < p1; ++plane)
      for (std::int64_t oh = 0; oh < Ho; ++oh) {
        std::int64_t h0 = oh * op.stride[0] - op.pad[0], h_padded = std::min(h0 + op.kernel[0], H + op.pad[2]) - h0;
        std::int64_t ha = std::max(h0, std::int64_t{0}), hb = std::min(h0 + op.kernel[0], H);
        for (std::int64_t ow = 0; ow < Wo; ++ow) {
          std::int64_t w0 = ow * op.stride[1] - op.pad[1], w_padded = std::min(w0 + op.kernel[1], W + op.pad[3]) - w0;
          std::int64_t wa = std::max(w0, std::int64_t{0}), wb = std::min(w0 + op.kernel[1], W);
          double sum = 0;
          for (std::int64_t h = ha; h < hb; ++h)
            for (std::int64_t w = wa; w < wb; ++w) sum += x[(plane * H + h) * W + w];
          std::int64_t count = op.count_include_pad ? h_padded * w_padded : (hb - ha) * (wb - wa);
          y[(plane * Ho + oh) * Wo + ow] = static_cast<float>(sum / static_cast<double>(count));
        }
      }
  });
}

/// A pooling of 1x1 windows without padding, max or average alike: every stride-th value,
/// in any layouts. oneDNN 2.6.3 runs it in its generic kernel on plain tensors
/// (simple_nchw:any): NASNet-A Mobile's four stride-2 reductions of plain tensors took 1-3 ms
/// each in the model (ONEDNN_VERBOSE, Zen 3 VM) for at most 400k values read.
void subsample(Preparation& p, std::int64_t sh, std::int64_t sw) {
  Shape const xs = p.inputs()[0].shape, ys = p.outputs()[0].shape;
  auto const xst = layout_strides(xs, p.input_layout(0)), yst = layout_strides(ys, p.output_layout(0));
  bool const pixels = p.output_layout(0) == Layout::channels_last;  // write channels innermost
  std::int64_t const N = ys[0], C = ys[1], Ho = ys[2], Wo = ys[3];
  int const threads = ys.numel() >= (std::int64_t{1} << 15) ? p.threads() : 1;
  p.run("own 1x1 pooling (a strided copy)", [=](Io const& io) -> Runner {
    return [=, x = io.in[0], y = io.out[0]] {
      if (pixels) {
        parallel_for(threads, N * Ho * Wo, [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t px = b; px < e; ++px) {
            std::int64_t const n = px / (Ho * Wo), oh = px / Wo % Ho, ow = px % Wo;
            float const* xp = x + n * xst[0] + oh * sh * xst[2] + ow * sw * xst[3];
            float* yp = y + n * yst[0] + oh * yst[2] + ow * yst[3];
            for (std::int64_t c = 0; c < C; ++c) yp[c * yst[1]] = xp[c * xst[1]];
          }
        });
      } else {
        parallel_for(threads, N * C * Ho, [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t row = b; row < e; ++row) {
            std::int64_t const n = row / (C * Ho), c = row / Ho % C, oh = row % Ho;
            float const* xp = x + n * xst[0] + c * xst[1] + oh * sh * xst[2];
            float* yp = y + n * yst[0] + c * yst[1] + oh * yst[2];
            for (std::int64_t ow = 0; ow < Wo; ++ow) yp[ow * yst[3]] = xp[ow * sw * xst[3]];
          }
        });
      }
    };
  });
}

}  // namespace

void prepare(BatchNorm const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  // Our loop, not oneDNN's batch_normalization: an inference BatchNorm is a per-channel affine
  // map, memory-bound, which a vectorised loop runs at the speed of memory in any layout.
  // oneDNN 2.6.3 has a JIT kernel for channels-last only when the channel count is a multiple
  // of 8 (4 with SSE4.1) and ran its generic C++ one otherwise: RandWire-WS's 78- and
  // 39-channel BatchNorms took 0.29 ms for 78x28x28 values and 2.2 ms for 39x112x112, 74% of
  // the model's kernel time on the Zen 3 VM (ONEDNN_VERBOSE, nspc_bnorm:any). (x - mean) * a +
  // bias with a = scale / sqrt(var + eps), exactly as the reference kernel computes it.
  Shape const& xs = p.inputs()[0].shape;
  if (xs.rank() < 2) p.reject("a BatchNorm needs a channel axis (axis 1); its input is " + xs.to_string());
  std::int64_t const N = xs[0], C = xs[1], inner = product(xs, 2, xs.rank());
  for (std::size_t k = 1; k < 5; ++k)
    if (p.inputs()[k].numel() != C)
      p.reject("BatchNorm parameter " + std::to_string(k) + " has " + std::to_string(p.inputs()[k].numel()) + " values for " +
               std::to_string(C) + " channels of " + xs.to_string());
  bool const in_cl = p.input_layout(0) == Layout::channels_last, out_cl = p.output_layout(0) == Layout::channels_last;
  bool const constant = p.constant_input(1) && p.constant_input(2) && p.constant_input(3) && p.constant_input(4);
  // The per-channel (mean, a, bias): from constant parameters computed once when binding,
  // kept by the runner; else on every run, into this node's workspace (which the arena shares
  // with other nodes between runs, so it cannot hold them across runs).
  std::size_t const params = constant ? 0 : p.workspace(static_cast<std::size_t>(3 * C) * sizeof(float));
  // Forking costs microseconds: small tensors run on one thread.
  int const threads = N * C * inner >= (std::int64_t{1} << 15) ? p.threads() : 1;
  float const eps = op.epsilon;
  p.run("own batch normalization (per-channel affine, one pass)", [=](Io const& io) -> Runner {
    float const *scale = io.in[1], *bias = io.in[2], *mean = io.in[3], *var = io.in[4];
    auto fill = [=](float* t) { cpu::detail::batch_norm_channels(scale, bias, mean, var, eps, C, t); };
    std::shared_ptr<std::vector<float>> kept;
    if (constant) {
      kept = std::make_shared<std::vector<float>>(static_cast<std::size_t>(3 * C));
      fill(kept->data());
    }
    float* t = constant ? kept->data() : static_cast<float*>(io.workspace[params]);
    float const* x = io.in[0];
    float* y = io.out[0];
    return [=, kept = std::move(kept)] {  // (kept named: a [=] lambda captures only what it uses)
      if (!constant) fill(t);
      float const *m = t, *a = t + C, *b = t + 2 * C;
      if (!in_cl && !out_cl) {  // planes of `inner` values, one channel each
        parallel_for(threads, N * C, [&](std::int64_t p0, std::int64_t p1) {
          for (std::int64_t plane = p0; plane < p1; ++plane) {
            std::int64_t const c = plane % C;
            float const *xp = x + plane * inner;
            float *yp = y + plane * inner;
            float const mc = m[c], ac = a[c], bc = b[c];
#pragma omp simd
            for (std::int64_t i = 0; i < inner; ++i) yp[i] = (xp[i] - mc) * ac + bc;
          }
        });
      } else if (in_cl && out_cl) {  // pixels of C consecutive channels
        parallel_for(threads, N * inner, [&](std::int64_t p0, std::int64_t p1) {
          for (std::int64_t px = p0; px < p1; ++px) {
            float const *xp = x + px * C;
            float *yp = y + px * C;
#pragma omp simd
            for (std::int64_t c = 0; c < C; ++c) yp[c] = (xp[c] - m[c]) * a[c] + b[c];
          }
        });
      } else {  // one side channels-last (rank 4), the other plain: read one, write the other
        parallel_for(threads, N * C, [&](std::int64_t p0, std::int64_t p1) {
          for (std::int64_t plane = p0; plane < p1; ++plane) {
            std::int64_t const n = plane / C, c = plane % C;
            float const mc = m[c], ac = a[c], bc = b[c];
            for (std::int64_t i = 0; i < inner; ++i) {
              std::int64_t const plain_at = plane * inner + i, cl_at = (n * inner + i) * C + c;
              y[out_cl ? cl_at : plain_at] = (x[in_cl ? cl_at : plain_at] - mc) * ac + bc;
            }
          }
        });
      }
    };
  });
}

void prepare(LayerNorm const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  Shape const& xs = p.inputs()[0].shape;
  std::int64_t len = p.inputs()[1].numel();
  // [rows, len]: oneDNN normalises over the last axis; our trailing axes are one in memory.
  memory::desc x = plain(Shape{xs.numel() / len, len}), g = plain(Shape{len});
  auto flags = normalization_flags::use_scale | normalization_flags::use_shift;
  auto pd = or_reject(p, "layer normalization of " + xs.to_string() + " over " + std::to_string(len) + " elements", [&] {
    return dnnl::layer_normalization_forward::primitive_desc({prop_kind::forward_inference, x, op.epsilon, flags}, user_scratchpad(), engine());
  });
  run_primitive<dnnl::layer_normalization_forward>(p, "layer normalization", pd,
                {{DNNL_ARG_SRC, x, From::input, 0},
                 {DNNL_ARG_SCALE, g, From::input, 1},
                 {DNNL_ARG_SHIFT, g, From::input, 2},
                 {DNNL_ARG_DST, x, From::output, 0}});
}

void prepare(AddLayerNorm const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  Shape const& ys = p.outputs()[0].shape;
  std::int64_t len = p.inputs()[2].numel();
  // The sum goes where the layer norm reads it: output 1 when the op keeps it, else scratch.
  From sum_from = op.keep_sum ? From::output : From::workspace;
  std::size_t sum_index = op.keep_sum ? 1 : p.workspace(static_cast<std::size_t>(ys.numel()) * sizeof(float));
  memory::desc y = plain(ys);
  std::size_t first = 0, second = 1;
  if (p.inputs()[0].shape != ys) std::swap(first, second);  // oneDNN broadcasts its second source only
  if (p.inputs()[first].shape == ys) {
    Shape bs = p.inputs()[second].shape;
    Dims b_dims(ys.rank() - bs.rank(), 1), own = dims_of(bs);
    b_dims.insert(b_dims.end(), own.begin(), own.end());
    memory::desc b = plain(Shape(b_dims));
    auto pd = or_reject(p, "binary add " + ys.to_string() + " with " + bs.to_string(),
                        [&] { return dnnl::binary::primitive_desc({algorithm::binary_add, y, b, y}, user_scratchpad(), engine()); });
    run_primitive<dnnl::binary>(p, "binary add", pd,
                                {{DNNL_ARG_SRC_0, y, From::input, first}, {DNNL_ARG_SRC_1, b, From::input, second}, {DNNL_ARG_DST, y, sum_from, sum_index}});
  } else {  // both operands broadcast: our own strided loop
    Shape as = p.inputs()[0].shape, bs = p.inputs()[1].shape;
    p.run("add (both operands broadcast)", [=, keep = op.keep_sum](Io const& io) -> Runner {
      float* s = keep ? io.out[1] : static_cast<float*>(io.workspace[sum_index]);
      return [=, a = io.in[0], b = io.in[1]] {
        cpu::for_each_index<3>(ys, {strides_of(ys), cpu::broadcast_strides(as, ys), cpu::broadcast_strides(bs, ys)},
                               [&](auto const& o) { s[o[0]] = a[o[1]] + b[o[2]]; });
      };
    });
  }
  memory::desc x = plain(Shape{ys.numel() / len, len}), g = plain(Shape{len});
  auto flags = normalization_flags::use_scale | normalization_flags::use_shift;
  auto pd = or_reject(p, "layer normalization of " + ys.to_string() + " over " + std::to_string(len) + " elements", [&] {
    return dnnl::layer_normalization_forward::primitive_desc({prop_kind::forward_inference, x, op.epsilon, flags}, user_scratchpad(), engine());
  });
  run_primitive<dnnl::layer_normalization_forward>(p, "layer normalization", pd,
                                                   {{DNNL_ARG_SRC, x, sum_from, sum_index},
                                                    {DNNL_ARG_SCALE, g, From::input, 2},
                                                    {DNNL_ARG_SHIFT, g, From::input, 3},
                                                    {DNNL_ARG_DST, x, From::output, 0}});
}

void prepare(Softmax const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  Shape const& xs = p.inputs()[0].shape;
  std::size_t a = xs.normalize_axis(op.axis);
  memory::desc x = plain(Shape{product(xs, 0, a), xs[a], product(xs, a + 1, xs.rank())});  // [outer, n, inner], along 1
  auto pd = or_reject(p, "softmax of " + xs.to_string() + " along axis " + std::to_string(op.axis), [&] {
    return dnnl::softmax_forward::primitive_desc({prop_kind::forward_inference, x, 1}, user_scratchpad(), engine());
  });
  run_primitive<dnnl::softmax_forward>(p, "softmax", pd, {{DNNL_ARG_SRC, x, From::input, 0}, {DNNL_ARG_DST, x, From::output, 0}});
}

void prepare(Pool2D const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  require_nonempty_inputs(p, "Pool2D");
  Shape const& xs = p.inputs()[0].shape;
  Shape const& ys = p.outputs()[0].shape;
  Dims kernel{op.kernel[0], op.kernel[1]}, stride{op.stride[0], op.stride[1]}, pad_l{op.pad[0], op.pad[1]}, pad_r{op.pad[2], op.pad[3]};
  if (op.global) kernel = {xs[2], xs[3]}, stride = {1, 1}, pad_l = pad_r = {0, 0};
  // A ceil-mode window that runs past the end padding: oneDNN sees more end padding.
  bool past_end = false;
  for (std::size_t d = 0; d < 2; ++d) {
    std::int64_t needed = (ys[2 + d] - 1) * stride[d] + kernel[d] - xs[2 + d] - pad_l[d];
    if (needed > pad_r[d]) pad_r[d] = needed, past_end = true;
  }
  bool const unpadded = pad_l == Dims{0, 0} && pad_r == Dims{0, 0};
  if (kernel == Dims{1, 1} && unpadded) return subsample(p, stride[0], stride[1]);
  if (op.kind == PoolKind::avg && op.count_include_pad && past_end) {
    int threads = p.threads();
    p.run("average pooling (own loop: a window past the end padding)", [op, xs, ys, threads](Io const& io) -> Runner {
      return [op, xs, ys, threads, x = io.in[0], y = io.out[0]] { average_pool(op, xs, ys, x, y, threads); };
    });
    return;
  }
  algorithm alg = op.kind == PoolKind::max     ? algorithm::pooling_max
                  : op.count_include_pad       ? algorithm::pooling_avg_include_padding
                                               : algorithm::pooling_avg_exclude_padding;
  // y computed in x's layout (oneDNN's pooling wants them alike), reordered if it lies otherwise.
  memory::desc x = input_desc(p, 0), y = output_desc(p, 0), y_as_x = laid_out(ys, p.input_layout(0));
  auto pd = or_reject(p, "pooling " + xs.to_string() + " -> " + ys.to_string(), [&] {
    return dnnl::pooling_forward::primitive_desc({prop_kind::forward_inference, alg, x, y_as_x, stride, kernel, pad_l, pad_r}, user_scratchpad(),
                                                 engine());
  });
  Arg out = output_as(p, DNNL_ARG_DST, 0, y_as_x, y);
  run_primitive<dnnl::pooling_forward>(p, "pooling", pd, {{DNNL_ARG_SRC, x, From::input, 0}, out});
  finish_output(p, out, 0, y);
}

void prepare(Reduce const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  Shape const& xs = p.inputs()[0].shape;
  auto reduced = op.reduced(xs);
  if (xs.numel() == 0)  // an empty reduced axis: the sum is 0, the mean 0/0 (NaN, as the reference)
    return run_fill(p, "fill (reduction over an empty axis)", 0, op.kind == ReduceKind::sum ? 0.f : std::numeric_limits<float>::quiet_NaN());
  // Dimensions of size 1 dropped and neighbours alike (both reduced or both kept) merged: the
  // same reduction over the fewest dimensions.
  Dims src, dst;
  bool last_reduced = false;
  for (std::size_t d = 0; d < xs.rank(); ++d) {
    if (xs[d] == 1) continue;
    if (!src.empty() && reduced[d] == last_reduced) {
      src.back() *= xs[d];
      dst.back() = reduced[d] ? 1 : src.back();
    } else {
      src.push_back(xs[d]);
      dst.push_back(reduced[d] ? 1 : xs[d]);
    }
    last_reduced = reduced[d];
  }
  if (src == dst) return run_copy(p, "copy (nothing to reduce)", 0, 0);
  memory::desc x = plain(Shape(src)), y = plain(Shape(dst));
  algorithm alg = op.kind == ReduceKind::sum ? algorithm::reduction_sum : algorithm::reduction_mean;
  auto pd = or_reject(p, "reduction of " + xs.to_string(), [&] {
    return dnnl::reduction::primitive_desc({alg, x, y, 0.f, 0.f}, user_scratchpad(), engine());
  });
  run_primitive<dnnl::reduction>(p, "reduction", pd, {{DNNL_ARG_SRC, x, From::input, 0}, {DNNL_ARG_DST, y, From::output, 0}});
}

}  // namespace autograph::cpu::builtin
