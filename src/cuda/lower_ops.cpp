// Lowerings of the built-in operators (autograph/cuda/ops.hpp): shape checks, algorithm
// plans and the launches that run at capture time. Each launch lambda captures everything it
// needs by value (descriptors, plans by shared_ptr), so it can be replayed into any capture.
#include <algorithm>
#include <array>
#include <climits>
#include <memory>
#include <vector>

#include "autograph/cuda/attention_tiles.hpp"
#include "autograph/cuda/device.hpp"
#include "autograph/cuda/epilogue.hpp"
#include "autograph/cuda/kernels.hpp"
#include "autograph/cuda/ops.hpp"
#include "autograph/runtime/cpu/resize.hpp"
#include "dnn.hpp"

namespace autograph::cuda::builtin {
namespace {

namespace kn = kernels;

static_assert(static_cast<int>(kn::UnaryCode::hard_swish) == static_cast<int>(UnaryKind::hard_swish), "UnaryCode follows UnaryKind");
static_assert(static_cast<int>(kn::BinaryCode::min) == static_cast<int>(BinaryKind::min), "BinaryCode follows BinaryKind");
static_assert(static_cast<int>(kn::ActCode::gelu) == static_cast<int>(Activation::gelu), "ActCode follows Activation");

using Ints = std::vector<std::int64_t>;

Ints dims_of(Shape const& s) { return Ints(s.begin(), s.end()); }

Ints contiguous_strides(Ints const& shape) {
  Ints st(shape.size());
  std::int64_t acc = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    st[i] = acc;
    acc *= shape[i];
  }
  return st;
}

/// Strides that read a tensor of shape `s` broadcast to `to` (NumPy alignment at the back).
Ints broadcast_strides(Shape const& s, Shape const& to) {
  Ints own = contiguous_strides(dims_of(s)), st(to.rank(), 0);
  std::size_t lead = to.rank() - s.rank();
  for (std::size_t d = 0; d < s.rank(); ++d) st[lead + d] = s[d] == 1 ? 0 : own[d];
  return st;
}

Ints scaled(Ints v, std::int64_t k) {
  for (auto& x : v) x *= k;
  return v;
}

std::int64_t product(Ints const& v, std::size_t begin = 0, std::size_t end = SIZE_MAX) {
  std::int64_t p = 1;
  for (std::size_t i = begin; i < std::min(end, v.size()); ++i) p *= v[i];
  return p;
}

/// An iteration shape with one stride vector per operand.
template <std::size_t N>
struct Dims {
  Ints shape;
  std::array<Ints, N> stride;
};

/// Drops dimensions of size 1 and merges neighbours every operand walks as one
/// (outer stride == inner stride * inner size): the index arithmetic in the kernels then
/// runs over the fewest dimensions. An empty result becomes one dimension of size 1.
template <std::size_t N>
Dims<N> coalesce(Dims<N> const& d) {
  Dims<N> out;
  for (std::size_t i = 0; i < d.shape.size(); ++i) {
    if (d.shape[i] == 1) continue;
    bool merge = !out.shape.empty();
    for (std::size_t k = 0; k < N && merge; ++k) merge = out.stride[k].back() == d.stride[k][i] * d.shape[i];
    if (merge) {
      out.shape.back() *= d.shape[i];
      for (std::size_t k = 0; k < N; ++k) out.stride[k].back() = d.stride[k][i];
      continue;
    }
    out.shape.push_back(d.shape[i]);
    for (std::size_t k = 0; k < N; ++k) out.stride[k].push_back(d.stride[k][i]);
  }
  if (out.shape.empty()) {
    out.shape.push_back(1);
    for (std::size_t k = 0; k < N; ++k) out.stride[k].push_back(0);
  }
  return out;
}

/// A strided copy from Dims<2> (operand 0: source, 1: destination).
kn::StridedCopy strided_copy(Dims<2> const& raw) {
  Dims<2> d = coalesce(raw);
  kn::StridedCopy c;
  c.rank = static_cast<int>(d.shape.size());
  for (std::size_t i = 0; i < d.shape.size(); ++i) {
    c.shape[i] = d.shape[i];
    c.src_stride[i] = d.stride[0][i];
    c.dst_stride[i] = d.stride[1][i];
  }
  return c;
}

/// The alignment (bytes, at most 256) of a pointer moved by `elements` floats.
std::uint32_t offset_alignment(std::int64_t elements) {
  if (elements == 0) return 256;
  auto bytes = static_cast<std::uint64_t>(elements < 0 ? -elements : elements) * sizeof(float);
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(256, bytes & (~bytes + 1)));
}

int as_int(Lowering& l, std::int64_t v, std::string const& what) {
  if (v > INT_MAX) l.reject(what + " = " + std::to_string(v) + " exceeds cuDNN's 32-bit range");
  return static_cast<int>(v);
}

kn::ActCode act_code(Activation a) { return static_cast<kn::ActCode>(static_cast<int>(a)); }

/// cuDNN's algorithm is chosen by timing it on buffers of its own, 256-byte aligned. The
/// output it writes keeps that alignment: the lowering asks for it (require_output_alignment),
/// so in-place concatenation places the output only where it holds, and the Concat copies it
/// elsewhere. That is the simplest fix that is always right (issue 16): choosing again, or
/// copying, once a launch on a 16-byte aligned slice failed would rely on cuDNN failing
/// cleanly, where a misaligned access can instead poison the context.
constexpr std::size_t cudnn_alignment = 256;

/// Some of cuDNN's kernels need 16-byte aligned operands: an input that is a view at an
/// offset that is not a multiple of 16 bytes (a Split piece of odd size) is copied to an
/// aligned workspace first.
struct Realign {
  bool needed = false;
  std::size_t workspace = 0, bytes = 0;
};
Realign realign(Lowering& l, std::size_t input) {
  if (l.input_alignment(input) >= 16) return {};
  std::size_t bytes = static_cast<std::size_t>(l.inputs()[input].numel()) * sizeof(float);
  return {true, l.workspace(bytes), bytes};
}
float const* aligned(Realign const& r, LaunchArgs const& a, std::size_t input) {
  if (!r.needed) return a.in[input];
  void* to = a.workspace[r.workspace];
  check(cudaMemcpyAsync(to, a.in[input], r.bytes, cudaMemcpyDeviceToDevice, a.stream), "cudaMemcpyAsync", "realigning a cuDNN operand");
  return static_cast<float const*>(to);
}

}  // namespace

// ---- convolutions (cuDNN) -------------------------------------------------------------------

namespace {
void lower_conv(Conv2D const& op, bool bias, Lowering& l) {
  Shape const& x = l.inputs()[0].shape;
  Shape const& w = l.inputs()[1].shape;
  Shape const& y = l.outputs()[0].shape;
  if (x[1] == 0) l.reject("a convolution with no input channels");
  auto [pt, pl, pb, pr] = op.pad;
  // cuDNN pads symmetrically; an asymmetric pad (TensorFlow's SAME with stride 2) is applied
  // by our pad kernel into a workspace first.
  bool symmetric = pt == pb && pl == pr;
  std::int64_t hp = symmetric ? x[2] : x[2] + pt + pb, wp = symmetric ? x[3] : x[3] + pl + pr;
  as_int(l, x[0] * x[1] * hp * wp, "input elements");
  as_int(l, y.numel(), "output elements");
  as_int(l, w.numel(), "weight elements");
  dnn::ConvShape s;
  s.n = as_int(l, x[0], "batch");
  s.c = as_int(l, x[1], "channels");
  s.h = as_int(l, hp, "height");
  s.w = as_int(l, wp, "width");
  s.k = as_int(l, w[0], "output channels");
  s.r = as_int(l, w[2], "kernel height");
  s.s = as_int(l, w[3], "kernel width");
  s.groups = as_int(l, op.groups, "groups");
  s.pad_h = symmetric ? as_int(l, pt, "padding") : 0;
  s.pad_w = symmetric ? as_int(l, pl, "padding") : 0;
  s.stride_h = as_int(l, op.stride[0], "stride");
  s.stride_w = as_int(l, op.stride[1], "stride");
  s.dilation_h = as_int(l, op.dilation[0], "dilation");
  s.dilation_w = as_int(l, op.dilation[1], "dilation");
  s.out_h = as_int(l, y[2], "output height");
  s.out_w = as_int(l, y[3], "output width");
  auto plan = std::make_shared<dnn::ConvForward>(l.device(), s, l.allow_tf32(), bias, op.act);
  ConvEpilogue const ep = plan->epilogue();
  bool fused = ep.fused != ConvEpilogue::Fused::no;
  l.require_output_alignment(0, cudnn_alignment);  // cuDNN writes y directly
  std::size_t ws = l.workspace(plan->workspace_bytes());
  std::size_t padded = symmetric ? 0 : l.workspace(static_cast<std::size_t>(x[0] * x[1] * hp * wp) * sizeof(float));
  kn::PadLayout pad;
  pad.rank = 4;
  for (int d = 0; d < 4; ++d) {
    pad.in_shape[d] = x[static_cast<std::size_t>(d)];
    pad.out_shape[d] = d < 2 ? x[static_cast<std::size_t>(d)] : d == 2 ? hp : wp;
  }
  pad.before[2] = pt;
  pad.before[3] = pl;
  std::int64_t n = y[0], k = y[1], inner = y[2] * y[3];
  Realign rx = symmetric ? realign(l, 0) : Realign{}, rw = realign(l, 1);  // the pad kernel reads any alignment
  Realign rb = fused && bias ? realign(l, 2) : Realign{};
  std::size_t zeros = ep.zero_bias ? l.upload(std::vector<float>(static_cast<std::size_t>(k), 0.f).data(), static_cast<std::size_t>(k) * sizeof(float)) : 0;
  if (!symmetric)
    l.launch("pad kernel", [=](LaunchArgs const& a) { kn::pad(pad, 0.f, a.in[0], static_cast<float*>(a.workspace[padded]), a.stream); });
  // One library call; the bias and activation in it unless cuDNN cannot fuse them (epilogue.hpp).
  l.launch(std::string(ep.launches().front()), [=](LaunchArgs const& a) {
    float const* in = symmetric ? aligned(rx, a, 0) : static_cast<float const*>(a.workspace[padded]);
    float const* b = ep.zero_bias ? static_cast<float const*>(a.uploaded[zeros]) : fused && bias ? aligned(rb, a, 2) : nullptr;
    plan->run(*a.device, a.stream, in, aligned(rw, a, 1), b, a.out[0], a.workspace[ws]);
  });
  if (ep.after.needed()) {
    kn::ActCode act = act_code(ep.after.act);
    bool kernel_bias = ep.after.bias;
    l.launch(std::string(bias_activation_launch),
             [=](LaunchArgs const& a) { kn::bias_activation(a.out[0], n, k, inner, kernel_bias ? a.in[2] : nullptr, act, a.stream); });
  }
}
}  // namespace

void lower(Conv2D const& op, Lowering& l) { lower_conv(op, l.inputs().size() == 3, l); }

void lower(ConvTranspose2D const& op, Lowering& l) {
  Shape const& x = l.inputs()[0].shape;
  Shape const& w = l.inputs()[1].shape;
  Shape const& y = l.outputs()[0].shape;
  bool bias = l.inputs().size() == 3;
  if (x[1] == 0) l.reject("a transposed convolution with no input channels");
  auto [pt, pl, pb, pr] = op.pad;
  // cuDNN's backward-data convolution is the transposed convolution with symmetric padding
  // and no output padding; otherwise it computes the full (uncropped) output into a
  // workspace, and the crop kernel cuts it out, adding the bias.
  bool direct = pt == pb && pl == pr && op.output_padding == std::array<std::int64_t, 2>{0, 0};
  std::int64_t full_h = op.stride[0] * (x[2] - 1) + op.dilation[0] * (w[2] - 1) + 1;
  std::int64_t full_w = op.stride[1] * (x[3] - 1) + op.dilation[1] * (w[3] - 1) + 1;
  std::int64_t dh = direct ? y[2] : full_h, dw = direct ? y[3] : full_w;
  as_int(l, x.numel(), "input elements");
  as_int(l, y[0] * y[1] * dh * dw, "output elements");
  as_int(l, w.numel(), "weight elements");
  dnn::ConvShape s;  // the forward convolution whose input gradient this is
  s.n = as_int(l, y[0], "batch");
  s.c = as_int(l, y[1], "output channels");
  s.h = as_int(l, dh, "height");
  s.w = as_int(l, dw, "width");
  s.k = as_int(l, x[1], "input channels");
  s.r = as_int(l, w[2], "kernel height");
  s.s = as_int(l, w[3], "kernel width");
  s.groups = as_int(l, op.groups, "groups");
  s.pad_h = direct ? as_int(l, pt, "padding") : 0;
  s.pad_w = direct ? as_int(l, pl, "padding") : 0;
  s.stride_h = as_int(l, op.stride[0], "stride");
  s.stride_w = as_int(l, op.stride[1], "stride");
  s.dilation_h = as_int(l, op.dilation[0], "dilation");
  s.dilation_w = as_int(l, op.dilation[1], "dilation");
  s.out_h = as_int(l, x[2], "input height");
  s.out_w = as_int(l, x[3], "input width");
  auto plan = std::make_shared<dnn::ConvBackwardData>(l.device(), s, l.allow_tf32());
  if (direct) l.require_output_alignment(0, cudnn_alignment);  // cuDNN writes y directly (else a workspace, cropped by our kernel)
  std::size_t ws = l.workspace(plan->workspace_bytes());
  std::size_t full = direct ? 0 : l.workspace(static_cast<std::size_t>(y[0] * y[1] * dh * dw) * sizeof(float));
  kn::CropLayout crop{y[0], y[1], full_h, full_w, y[2], y[3], pt, pl};
  std::int64_t n = y[0], m = y[1], inner = y[2] * y[3];
  Realign rx = realign(l, 0), rw = realign(l, 1);
  l.launch("cudnnConvolutionBackwardData", [=](LaunchArgs const& a) {
    float* dx = direct ? a.out[0] : static_cast<float*>(a.workspace[full]);
    plan->run(*a.device, a.stream, aligned(rx, a, 0), aligned(rw, a, 1), dx, a.workspace[ws]);
    if (!direct) kn::crop_bias(crop, dx, bias ? a.in[2] : nullptr, a.out[0], a.stream);
  });
  if (direct && bias)  // cuDNN has no fused backward-data convolution with a bias
    l.launch(std::string(bias_activation_launch),
             [=](LaunchArgs const& a) { kn::bias_activation(a.out[0], n, m, inner, a.in[2], kn::ActCode::none, a.stream); });
}

// ---- matrix products (cuBLASLt) ---------------------------------------------------------------

namespace {
/// A batched product c = a b (with a cuBLASLt epilogue) planned once: one cuBLASLt call per
/// entry of `outer`, each a strided batch.
struct BatchedGemm {
  struct Offsets {
    std::int64_t a, b, c;
  };
  std::shared_ptr<dnn::Gemm> plan;
  std::vector<Offsets> outer;
  std::size_t workspace = 0;
  /// Enqueues every call; `bias`: one per column of c when the epilogue has one.
  /// @throws CudaError for a product lowered for planning only (no plan: nothing can run it).
  void run(LaunchArgs const& a, float const* x, float const* w, float const* bias, float* c) const {
    if (!plan) throw CudaError(std::string(gemm_launch) + ": this product was lowered for planning only (no GPU); it cannot be launched");
    for (auto const& o : outer) plan->run(*a.device, a.stream, x + o.a, w + o.b, bias, c + o.c, a.workspace[workspace]);
  }
};

/// Plans c[ys] = a[as] b[bs] with NumPy broadcasting of the batch dimensions, a and b read
/// from pointers aligned to `align_a` and `align_b` bytes, c to 16.
/// @pre K (as's last dimension) > 0.
BatchedGemm plan_gemm(Lowering& l, Shape const& as, Shape const& bs, Shape const& ys, GemmEpilogue::Fused epilogue, std::size_t align_a,
                      std::size_t align_b) {
  std::size_t r = ys.rank();
  std::int64_t M = ys[r - 2], N = ys[r - 1], K = as[as.rank() - 1];
  Shape batch(ys.dims().first(r - 2));
  Shape a_batch(as.dims().first(as.rank() - 2)), b_batch(bs.dims().first(bs.rank() - 2));
  Ints st_a = scaled(broadcast_strides(a_batch, batch), M * K);
  Ints st_b = scaled(broadcast_strides(b_batch, batch), K * N);
  Ints st_c = scaled(contiguous_strides(dims_of(batch)), M * N);
  std::int64_t batch_n = batch.numel();
  dnn::GemmShape g;
  g.n = N;
  g.k = K;
  g.epilogue = epilogue;
  using Offsets = BatchedGemm::Offsets;
  std::vector<Offsets> outer;
  // One matrix b for the whole batch and a batch-contiguous a: fold the batch into the rows,
  // one GEMM [batch*M, K] x [K, N] (a linear layer over a sequence).
  bool b_shared = std::ranges::all_of(st_b, [](std::int64_t s) { return s == 0; });
  bool a_dense = true;
  Ints dense_a = scaled(contiguous_strides(dims_of(batch)), M * K);
  for (std::size_t d = 0; d < batch.rank(); ++d) a_dense = a_dense && (batch[d] == 1 || st_a[d] == dense_a[d]);
  if (b_shared && a_dense) {
    g.m = batch_n * M;
    outer.push_back({0, 0, 0});
  } else {
    // Otherwise a strided batch over the innermost (coalesced) batch dimension, and a loop
    // over the others when the broadcast pattern cannot be one stride per operand.
    Dims<3> d = coalesce(Dims<3>{dims_of(batch), {st_a, st_b, st_c}});
    g.m = M;
    if (d.shape.back() > INT_MAX) l.reject("a batch of " + std::to_string(d.shape.back()) + " matrices exceeds cuBLASLt's 32-bit count");
    g.batch = static_cast<int>(d.shape.back());
    g.stride_a = d.stride[0].back();
    g.stride_b = d.stride[1].back();
    g.stride_c = d.stride[2].back();
    std::size_t loops = d.shape.size() - 1;
    std::int64_t count = product(d.shape, 0, loops);
    for (std::int64_t i = 0; i < count; ++i) {
      Offsets o{0, 0, 0};
      std::int64_t rem = i;
      for (std::size_t k = loops; k-- > 0;) {
        std::int64_t idx = rem % d.shape[k];
        rem /= d.shape[k];
        o.a += idx * d.stride[0][k];
        o.b += idx * d.stride[1][k];
        o.c += idx * d.stride[2][k];
      }
      outer.push_back(o);
    }
  }
  // What each operand's pointers are aligned to, over every matrix the plan touches.
  auto align = [&](std::size_t base, std::int64_t stride, auto member) {
    std::uint32_t al = std::min<std::uint32_t>(static_cast<std::uint32_t>(base), offset_alignment(g.batch > 1 ? stride : 0));
    for (auto const& o : outer) al = std::min(al, offset_alignment(o.*member));
    return al;
  };
  g.align_a = align(align_a, g.stride_a, &Offsets::a);
  g.align_b = align(align_b, g.stride_b, &Offsets::b);
  g.align_c = align(16, g.stride_c, &Offsets::c);
  // Planning without a GPU: cuBLASLt's heuristic needs the device, so the plan is left out
  // and the workspace is the most any algorithm it offers may take (dnn::max_gemm_workspace).
  if (l.planning_only()) return {nullptr, std::move(outer), l.workspace(dnn::max_gemm_workspace)};
  auto plan = std::make_shared<dnn::Gemm>(l.device(), g, l.allow_tf32());
  std::size_t ws = l.workspace(plan->workspace_bytes());
  return {std::move(plan), std::move(outer), ws};
}
}  // namespace

namespace {
void lower_matmul(MatMul const& op, bool bias, Lowering& l) {
  Shape const& as = l.inputs()[0].shape;
  Shape const& ys = l.outputs()[0].shape;
  std::int64_t N = ys[ys.rank() - 1], K = as[as.rank() - 1];
  std::int64_t total = ys.numel();
  if (K == 0) {  // an empty sum: act(0) everywhere, or act(bias) per column
    float v = bias ? 0.f : apply(op.act, 0.f);
    l.launch("fill", [=](LaunchArgs const& a) { kn::fill(a.out[0], total, v, a.stream); });
    if (bias) {
      kn::ActCode act = act_code(op.act);
      l.launch(std::string(bias_activation_launch),
               [=](LaunchArgs const& a) { kn::bias_activation(a.out[0], total / N, N, 1, a.in[2], act, a.stream); });
    }
    return;
  }
  // The bias and relu are fused (CUBLASLT_EPILOGUE_BIAS, _RELU, _RELU_BIAS); sigmoid, tanh and
  // the exact GELU have no epilogue and run in a kernel after the product (epilogue.hpp).
  GemmEpilogue const ep = gemm_epilogue(bias, op.act);
  BatchedGemm gemm = plan_gemm(l, as, l.inputs()[1].shape, ys, ep.fused, l.input_alignment(0), l.input_alignment(1));
  Realign rb = bias ? realign(l, 2) : Realign{};  // the epilogue reads the bias with vector loads
  l.launch(std::string(gemm_launch), [=](LaunchArgs const& a) { gemm.run(a, a.in[0], a.in[1], bias ? aligned(rb, a, 2) : nullptr, a.out[0]); });
  if (ep.after.needed()) {
    kn::ActCode after = act_code(ep.after.act);
    l.launch(std::string(bias_activation_launch), [=](LaunchArgs const& a) { kn::bias_activation(a.out[0], 1, 1, total, nullptr, after, a.stream); });
  }
}
}  // namespace

void lower(MatMul const& op, Lowering& l) { lower_matmul(op, l.inputs().size() == 3, l); }

// ---- pooling, normalisation, softmax, reduce, resize ----------------------------------------

void lower(Pool2D const& op, Lowering& l) {
  Shape const& x = l.inputs()[0].shape;
  Shape const& y = l.outputs()[0].shape;
  kn::PoolLayout p;
  p.planes = x[0] * x[1];
  p.h = x[2];
  p.w = x[3];
  p.out_h = y[2];
  p.out_w = y[3];
  if (op.global) {
    p.kernel_h = x[2];
    p.kernel_w = x[3];
  } else {
    p.kernel_h = op.kernel[0];
    p.kernel_w = op.kernel[1];
    p.stride_h = op.stride[0];
    p.stride_w = op.stride[1];
    p.pad_top = op.pad[0];
    p.pad_left = op.pad[1];
    p.pad_bottom = op.pad[2];
    p.pad_right = op.pad[3];
  }
  p.max = op.kind == PoolKind::max;
  p.count_include_pad = op.count_include_pad;
  l.launch("pool2d kernel", [=](LaunchArgs const& a) { kn::pool2d(p, a.in[0], a.out[0], a.stream); });
}

void lower(BatchNorm const& op, Lowering& l) {
  Shape const& x = l.inputs()[0].shape;
  std::int64_t n = x[0], c = x[1], inner = x.numel() / (n * c);
  float eps = op.epsilon;
  l.launch("batch_norm kernel", [=](LaunchArgs const& a) {
    kn::batch_norm(n, c, inner, eps, a.in[0], a.in[1], a.in[2], a.in[3], a.in[4], a.out[0], a.stream);
  });
}

void lower(LayerNorm const& op, Lowering& l) {
  std::int64_t len = l.inputs()[1].numel(), rows = l.inputs()[0].numel() / len;
  float eps = op.epsilon;
  l.launch("layer_norm kernel", [=](LaunchArgs const& a) { kn::layer_norm(rows, len, eps, a.in[0], a.in[1], a.in[2], a.out[0], a.stream); });
}

void lower(Softmax const& op, Lowering& l) {
  Shape const& x = l.inputs()[0].shape;
  std::size_t axis = x.normalize_axis(op.axis);
  Ints d = dims_of(x);
  std::int64_t outer = product(d, 0, axis), n = d[axis], inner = product(d, axis + 1);
  l.launch("softmax kernel", [=](LaunchArgs const& a) { kn::softmax(outer, n, inner, a.in[0], a.out[0], a.stream); });
}

void lower(Reduce const& op, Lowering& l) {
  Shape const& x = l.inputs()[0].shape;
  auto reduced = op.reduced(x);
  Ints st = contiguous_strides(dims_of(x));
  Dims<1> kept, red;
  for (std::size_t d = 0; d < x.rank(); ++d) {
    Dims<1>& to = reduced[d] ? red : kept;
    to.shape.push_back(x[d]);
    to.stride[0].push_back(st[d]);
  }
  kept = coalesce(kept);
  red = coalesce(red);
  kn::ReduceLayout r;
  r.kept_rank = static_cast<int>(kept.shape.size());
  r.reduced_rank = static_cast<int>(red.shape.size());
  for (std::size_t i = 0; i < kept.shape.size(); ++i) {
    r.kept_shape[i] = kept.shape[i];
    r.kept_stride[i] = kept.stride[0][i];
  }
  for (std::size_t i = 0; i < red.shape.size(); ++i) {
    r.reduced_shape[i] = red.shape[i];
    r.reduced_stride[i] = red.stride[0][i];
  }
  bool mean = op.kind == ReduceKind::mean;
  l.launch("reduce kernel", [=](LaunchArgs const& a) { kn::reduce(r, mean, a.in[0], a.out[0], a.stream); });
}

void lower(Resize const& op, Lowering& l) {
  Shape const& x = l.inputs()[0].shape;
  Shape const& y = l.outputs()[0].shape;
  kn::ResizeLayout r;
  r.rank = static_cast<int>(x.rank());
  r.extrapolation_value = op.extrapolation_value;
  std::vector<kn::ResizeTap> table;
  bool changes = false;
  for (std::size_t d = 0; d < x.rank(); ++d) {
    r.in_shape[d] = x[d];
    r.out_shape[d] = y[d];
    // The reference's test for an axis the resize leaves alone (runtime/cpu/resize.hpp).
    bool unchanged = y[d] == x[d] && op.scale(d, x[d]) == 1.0 && op.coordinate != ResizeCoordinate::tf_half_pixel_for_nn &&
                     (op.coordinate != ResizeCoordinate::tf_crop_and_resize || (op.roi[d] == 0 && op.roi[x.rank() + d] == 1));
    if (unchanged) continue;
    if (x[d] > INT32_MAX) l.reject("resizing an axis of " + std::to_string(x[d]) + " positions");
    changes = true;
    cpu::ResizeTaps t = cpu::resize_taps(op, d, x[d], y[d]);
    r.taps[d] = static_cast<std::int32_t>(t.taps);
    r.first[d] = static_cast<std::int64_t>(table.size());
    for (std::int64_t j = 0; j < y[d]; ++j)
      for (std::size_t k = 0; k < t.taps; ++k) {
        std::size_t at = static_cast<std::size_t>(j) * t.taps + k;
        bool outside = t.outside[static_cast<std::size_t>(j)] != 0;
        table.push_back({outside ? -1 : static_cast<std::int32_t>(t.index[at]), outside ? 0.f : static_cast<float>(t.weight[at])});
      }
  }
  if (!changes && (l.allow_views() || !l.launched())) {  // a resize that changes nothing: the input itself, as the reference
    l.view(0, 0);
    return;
  }
  std::size_t tab = l.upload(table.data(), table.size() * sizeof(kn::ResizeTap));
  l.launch("resize kernel", [=](LaunchArgs const& a) {
    kn::resize(r, static_cast<kn::ResizeTap const*>(a.uploaded[tab]), a.in[0], a.out[0], a.stream);
  });
}

// ---- elementwise --------------------------------------------------------------------------------

namespace {
/// How the binary kernel reads a and b broadcast to ys.
kn::BroadcastLayout broadcast_layout(Shape const& as, Shape const& bs, Shape const& ys) {
  Dims<3> d = coalesce(Dims<3>{dims_of(ys), {contiguous_strides(dims_of(ys)), broadcast_strides(as, ys), broadcast_strides(bs, ys)}});
  kn::BroadcastLayout b;
  b.rank = static_cast<int>(d.shape.size());
  for (std::size_t i = 0; i < d.shape.size(); ++i) {
    b.shape[i] = d.shape[i];
    b.a_stride[i] = d.stride[1][i];
    b.b_stride[i] = d.stride[2][i];
  }
  return b;
}
}  // namespace

void lower_binary(BinaryKind kind, Lowering& l) {
  kn::BroadcastLayout b = broadcast_layout(l.inputs()[0].shape, l.inputs()[1].shape, l.outputs()[0].shape);
  auto code = static_cast<kn::BinaryCode>(static_cast<int>(kind));
  l.launch("binary kernel", [=](LaunchArgs const& a) { kn::binary(code, b, a.in[0], a.in[1], a.out[0], a.stream); });
}

// ---- producers with an elementwise chain ------------------------------------------------------

namespace {
/// The chain of an epilogue as kernels over the producer's output, in place (each reads and
/// writes the same element): not fused on the GPU yet, one pass per step, as the unfused graph.
template <class Producer>
void lower_chain(Epilogue<Producer> const& op, Lowering& l) {
  Shape const& ys = l.outputs()[0].shape;
  std::int64_t n = ys.numel();
  kn::BroadcastLayout same = broadcast_layout(ys, ys, ys);
  std::size_t input = op.producer_inputs();
  for (EpilogueStep const& s : op.chain()) {
    switch (s.kind) {
      case EpilogueKind::add:
      case EpilogueKind::mul: {
        auto code = static_cast<kn::BinaryCode>(static_cast<int>(s.kind == EpilogueKind::add ? BinaryKind::add : BinaryKind::mul));
        std::size_t r = input++;
        l.launch("binary kernel", [=](LaunchArgs const& a) { kn::binary(code, same, a.out[0], a.in[r], a.out[0], a.stream); });
        break;
      }
      case EpilogueKind::activation: {
        kn::ActCode act = act_code(s.act);
        l.launch(std::string(bias_activation_launch), [=](LaunchArgs const& a) { kn::bias_activation(a.out[0], 1, 1, n, nullptr, act, a.stream); });
        break;
      }
      case EpilogueKind::scale: {
        float sc = s.scale, sh = s.shift;
        l.launch("unary kernel", [=](LaunchArgs const& a) { kn::unary(kn::UnaryCode::scale, sc, sh, a.out[0], a.out[0], n, a.stream); });
        break;
      }
    }
  }
}
}  // namespace

void lower(Conv2DEpilogue const& op, Lowering& l) {
  if (l.outputs()[0].numel() == 0) return;
  lower_conv(op.producer, op.bias, l);
  lower_chain(op, l);
}

void lower(MatMulEpilogue const& op, Lowering& l) {
  if (l.outputs()[0].numel() == 0) return;
  lower_matmul(op.producer, op.bias, l);
  lower_chain(op, l);
}

// ---- fused transformer ops ------------------------------------------------------------------

void lower(AddLayerNorm const& op, Lowering& l) {
  // One kernel (reduction.cu): the sum formed, kept on chip for its row and written out only
  // when keep_sum asks for it; no workspace.
  Shape const& ys = l.outputs()[0].shape;
  if (ys.numel() == 0) return;
  kn::BroadcastLayout b = broadcast_layout(l.inputs()[0].shape, l.inputs()[1].shape, ys);
  std::int64_t len = l.inputs()[2].numel();
  float eps = op.epsilon;
  bool keep = op.keep_sum;
  l.launch("add_layer_norm kernel", [=](LaunchArgs const& a) {
    kn::add_layer_norm(b, len, eps, a.in[0], a.in[1], a.in[2], a.in[3], a.out[0], keep ? a.out[1] : nullptr, a.stream);
  });
}

void lower(FusedAttention const& op, Lowering& l) {
  // One kernel (attention.cu, attention_tiles.hpp): the scores stay on chip. Every operand is
  // read through strides over the output's batch dimensions, 0 where it broadcasts.
  Shape const& ys = l.outputs()[0].shape;
  if (ys.numel() == 0) return;
  Shape scores = op.scores_shape(l.inputs());
  Shape const &qs = l.inputs()[0].shape, &ks = l.inputs()[1].shape, &vs = l.inputs()[2].shape;
  std::size_t r = ys.rank();
  std::int64_t d = qs[qs.rank() - 1], dv = ys[r - 1], tq = ys[r - 2], tk = scores[scores.rank() - 1];
  if (tk == 0) {  // softmax over no keys, times no values: an empty sum
    std::int64_t total = ys.numel();
    l.launch("fill", [=](LaunchArgs const& a) { kn::fill(a.out[0], total, 0.f, a.stream); });
    return;
  }
  if (d > kn::attention::max_head_dim || dv > kn::attention::max_head_dim)
    l.reject("FusedAttention with q " + qs.to_string() + " and v " + vs.to_string() + ": head dimensions D = " + std::to_string(d) +
             " and Dv = " + std::to_string(dv) + " exceed the fused kernel's bound of " + std::to_string(kn::attention::max_head_dim));
  if (r - 2 > static_cast<std::size_t>(kn::max_rank)) l.reject("FusedAttention with more than 8 batch dimensions (output " + ys.to_string() + ")");
  Shape batch(ys.dims().first(r - 2));
  auto matrix_strides = [&](Shape const& s, std::int64_t elements) {
    return scaled(broadcast_strides(Shape(s.dims().first(s.rank() - 2)), batch), elements);
  };
  // The mask broadcasts to the scores [..., Tq, Tk], whose batch broadcasts to the output's.
  Ints mask_st(r, 0);
  if (l.inputs().size() == 4) {
    Ints full = dims_of(batch);
    full.push_back(tq);
    full.push_back(tk);
    mask_st = broadcast_strides(l.inputs()[3].shape, Shape(full));
  }
  Ints mask_batch(mask_st.begin(), mask_st.end() - 2);
  Dims<4> raw{dims_of(batch), {matrix_strides(qs, tq * d), matrix_strides(ks, d * tk), matrix_strides(vs, tk * dv), mask_batch}};
  Dims<4> c = coalesce(raw);
  kn::AttentionLayout L;
  L.batch_rank = static_cast<int>(c.shape.size());
  for (std::size_t i = 0; i < c.shape.size(); ++i) {
    L.batch_shape[i] = c.shape[i];
    L.q_stride[i] = c.stride[0][i];
    L.k_stride[i] = c.stride[1][i];
    L.v_stride[i] = c.stride[2][i];
    L.mask_stride[i] = c.stride[3][i];
  }
  L.tq = tq;
  L.tk = tk;
  L.d = d;
  L.dv = dv;
  L.mask_row = mask_st[r - 2];
  L.mask_col = mask_st[r - 1];
  L.scale = op.scale;
  bool mask = l.inputs().size() == 4;
  l.launch("fused_attention kernel", [=](LaunchArgs const& a) {
    kn::fused_attention(L, a.in[0], a.in[1], a.in[2], mask ? a.in[3] : nullptr, a.out[0], a.stream);
  });
}

void lower_unary(UnaryKind kind, float alpha, float beta, Lowering& l) {
  auto code = static_cast<kn::UnaryCode>(static_cast<int>(kind));
  std::int64_t n = l.outputs()[0].numel();
  l.launch("unary kernel", [=](LaunchArgs const& a) { kn::unary(code, alpha, beta, a.in[0], a.out[0], n, a.stream); });
}

void lower(Scale const& op, Lowering& l) {
  std::int64_t n = l.outputs()[0].numel();
  float s = op.scale, t = op.shift;
  l.launch("unary kernel", [=](LaunchArgs const& a) { kn::unary(kn::UnaryCode::scale, s, t, a.in[0], a.out[0], n, a.stream); });
}

namespace {
/// A plain device-to-device copy of n floats.
void copy(Lowering& l, std::int64_t n) {
  Dims<2> d{{n}, {Ints{1}, Ints{1}}};
  kn::StridedCopy c = strided_copy(d);
  l.launch("copy", [=](LaunchArgs const& a) { kn::copy_strided(c, a.in[0], a.out[0], a.stream); });
}
}  // namespace

void lower(Identity const&, Lowering& l) {
  if (l.allow_views() || !l.launched()) l.view(0, 0);
  else copy(l, l.outputs()[0].numel());
}

// ---- layout -----------------------------------------------------------------------------------

void lower(Reshape const&, Lowering& l) { l.view(0, 0); }  // never a kernel: no schedule launches it

void lower(Concat const& op, Lowering& l) {
  Shape const& ys = l.outputs()[0].shape;
  std::size_t axis = ys.normalize_axis(op.axis);
  Ints d = dims_of(ys);
  std::int64_t outer = product(d, 0, axis), inner = product(d, axis + 1), total = d[axis];
  struct Piece {
    std::int64_t offset;  // elements into the output
    kn::StridedCopy copy;
    bool empty;
  };
  std::vector<Piece> pieces;
  std::int64_t at = 0;
  for (std::size_t i = 0; i < l.inputs().size(); ++i) {
    std::int64_t len = l.inputs()[i].shape[axis];
    Dims<2> p{{outer, len * inner}, {Ints{len * inner, 1}, Ints{total * inner, 1}}};
    pieces.push_back({at * inner, strided_copy(p), l.inputs()[i].numel() == 0});
    // With one outer block each input is one contiguous range of the output: its producer
    // can write it there directly.
    if (outer == 1 && !pieces.back().empty) l.place_input(i, 0, at * inner);
    at += len;
  }
  l.launch("concat copy", [=](LaunchArgs const& a) {
    for (std::size_t i = 0; i < pieces.size(); ++i)
      if (!pieces[i].empty && !a.placed[i]) kn::copy_strided(pieces[i].copy, a.in[i], a.out[0] + pieces[i].offset, a.stream);
  });
}

void lower(Split const& op, Lowering& l) {
  Shape const& xs = l.inputs()[0].shape;
  std::size_t axis = xs.normalize_axis(op.axis);
  Ints d = dims_of(xs);
  std::int64_t outer = product(d, 0, axis), inner = product(d, axis + 1), total = d[axis];
  // Every piece a contiguous range of the input: views, always (the cost model counts such
  // a Split as no kernel, so no schedule launches it; cost/op_cost_model.hpp).
  if (outer == 1) {
    std::int64_t at = 0;
    for (std::size_t j = 0; j < l.outputs().size(); ++j) {
      l.view(j, 0, at * inner);
      at += op.sizes[j];
    }
    return;
  }
  struct Piece {
    std::int64_t offset;
    kn::StridedCopy copy;
  };
  std::vector<Piece> pieces;
  std::int64_t at = 0;
  for (std::size_t j = 0; j < l.outputs().size(); ++j) {
    std::int64_t len = op.sizes[j];
    Dims<2> p{{outer, len * inner}, {Ints{total * inner, 1}, Ints{len * inner, 1}}};
    pieces.push_back({at * inner, strided_copy(p)});
    at += len;
  }
  l.launch("split copy", [=](LaunchArgs const& a) {
    for (std::size_t j = 0; j < pieces.size(); ++j)
      if (a.out[j]) kn::copy_strided(pieces[j].copy, a.in[0] + pieces[j].offset, a.out[j], a.stream);
  });
}

void lower(Transpose const& op, Lowering& l) {
  Shape const& xs = l.inputs()[0].shape;
  Shape const& ys = l.outputs()[0].shape;
  Ints xst = contiguous_strides(dims_of(xs)), src(op.perm.size());
  for (std::size_t i = 0; i < op.perm.size(); ++i) src[i] = xst[static_cast<std::size_t>(op.perm[i])];
  kn::StridedCopy c = strided_copy(Dims<2>{dims_of(ys), {src, contiguous_strides(dims_of(ys))}});
  l.launch("transpose copy", [=](LaunchArgs const& a) { kn::copy_strided(c, a.in[0], a.out[0], a.stream); });
}

void lower(Slice const& op, Lowering& l) {
  Shape const& xs = l.inputs()[0].shape;
  Shape const& ys = l.outputs()[0].shape;
  auto ranges = op.ranges(xs);
  Ints xst = contiguous_strides(dims_of(xs)), yst = contiguous_strides(dims_of(ys)), src(xs.rank());
  std::int64_t origin = 0;
  bool contiguous = true;  // the output, walked in order, reads consecutive input elements
  for (std::size_t d = 0; d < xs.rank(); ++d) {
    origin += ranges[d].start * xst[d];
    src[d] = ranges[d].step * xst[d];
    contiguous = contiguous && (ranges[d].count <= 1 || src[d] == yst[d]);
  }
  if (contiguous && (l.allow_views() || !l.launched())) {
    l.view(0, 0, origin);
    return;
  }
  kn::StridedCopy c = strided_copy(Dims<2>{dims_of(ys), {src, yst}});
  l.launch("slice copy", [=](LaunchArgs const& a) { kn::copy_strided(c, a.in[0] + origin, a.out[0], a.stream); });
}

namespace {
void lower_pad(Lowering& l, Ints const& before, float value) {
  Shape const& xs = l.inputs()[0].shape;
  Shape const& ys = l.outputs()[0].shape;
  kn::PadLayout p;
  p.rank = static_cast<int>(xs.rank());
  for (std::size_t d = 0; d < xs.rank(); ++d) {
    p.in_shape[d] = xs[d];
    p.out_shape[d] = ys[d];
    p.before[d] = before[d];
  }
  l.launch("pad kernel", [=](LaunchArgs const& a) { kn::pad(p, value, a.in[0], a.out[0], a.stream); });
}
}  // namespace

void lower(Pad const& op, Lowering& l) {
  lower_pad(l, Ints(op.pads.begin(), op.pads.begin() + static_cast<std::ptrdiff_t>(l.inputs()[0].shape.rank())), op.value);
}

void lower(Enlarge const& op, Lowering& l) {
  Shape const& w = l.inputs()[0].shape;
  lower_pad(l, Ints{0, 0, (op.kernel[0] - w[2]) / 2, (op.kernel[1] - w[3]) / 2}, 0.f);
}

}  // namespace autograph::cuda::builtin

namespace autograph::cuda {

bool concat_in_place(Concat const& op, std::span<TensorDesc const> in) {
  using namespace builtin;  // lower(Concat)'s helpers
  if (in.empty()) return false;
  Shape ys = op.infer(in)[0].shape;
  std::size_t axis = ys.normalize_axis(op.axis);
  Ints d = dims_of(ys);
  if (product(d, 0, axis) != 1) return false;  // the condition lower(Concat) offers placement under
  std::int64_t inner = product(d, axis + 1), at = 0;
  for (auto const& x : in) {
    if (x.numel() > 0 && (static_cast<std::size_t>(at * inner) * sizeof(float)) % cudnn_alignment != 0) return false;
    at += x.shape[axis];
  }
  return true;
}

}  // namespace autograph::cuda
