// Conv2D, ConvTranspose2D and MatMul on oneDNN: convolution, deconvolution and matmul
// primitives, the bias and the fused activation (an eltwise post-op) in the same primitive.
// Weights are left to the primitive's preferred layout (format_tag::any): a constant weight
// is reordered once when bound, a computed one on every run into a workspace. A convolution's
// x and y stay as they lie (plain or channels-last) or go through oneDNN's blocked layouts,
// whichever was measured faster.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "primitive.hpp"

namespace autograph::cpu::builtin {
namespace {

using namespace detail;
using tag = memory::format_tag;

memory::desc any(Dims const& d) { return memory::desc(d, memory::data_type::f32, tag::any); }

dnnl::algorithm eltwise_of(Activation act) {
  return act == Activation::relu      ? dnnl::algorithm::eltwise_relu
         : act == Activation::sigmoid ? dnnl::algorithm::eltwise_logistic
         : act == Activation::gelu    ? dnnl::algorithm::eltwise_gelu_erf
                                      : dnnl::algorithm::eltwise_tanh;
}

dnnl::primitive_attr with_activation(Activation act) {
  dnnl::primitive_attr attr = user_scratchpad();
  if (act == Activation::none) return attr;
  dnnl::post_ops ops;
  ops.append_eltwise(1.f, eltwise_of(act), 0.f, 0.f);
  attr.set_post_ops(ops);
  return attr;
}

/// The producer's activation and then the epilogue's chain as oneDNN post-ops, applied in
/// order to each output tile inside the primitive (oneDNN's "Primitive Attributes: Post-ops":
/// eltwise, binary; eltwise_linear is alpha * x + beta). `operand(i)` is the memory desc of
/// the chain's i-th operand as the runtime holds it; `args` receives one argument per binary
/// post-op (DNNL_ARG_ATTR_MULTIPLE_POST_OP(position) | DNNL_ARG_SRC_1), reading that input.
template <class Producer, class OperandDesc>
dnnl::primitive_attr with_epilogue(Epilogue<Producer> const& op, OperandDesc const& operand, std::vector<Arg>& args) {
  dnnl::primitive_attr attr = user_scratchpad();
  dnnl::post_ops ops;
  if (op.producer.act != Activation::none) ops.append_eltwise(1.f, eltwise_of(op.producer.act), 0.f, 0.f);
  std::size_t input = op.producer_inputs();
  for (EpilogueStep const& s : op.chain()) {
    int position = ops.len();
    switch (s.kind) {
      case EpilogueKind::add:
      case EpilogueKind::mul: {
        memory::desc d = operand(input);
        ops.append_binary(s.kind == EpilogueKind::add ? dnnl::algorithm::binary_add : dnnl::algorithm::binary_mul, d);
        args.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(position) | DNNL_ARG_SRC_1, d, From::input, input});
        ++input;
        break;
      }
      case EpilogueKind::activation:
        if (s.act != Activation::none) ops.append_eltwise(1.f, eltwise_of(s.act), 0.f, 0.f);
        break;
      case EpilogueKind::scale: ops.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, s.scale, s.shift); break;
    }
  }
  attr.set_post_ops(ops);
  return attr;
}

/// Whether oneDNN picked its reference implementation (a scalar loop, orders of magnitude
/// slower than its JIT kernels): the layouts were then too plain for it.
bool is_reference(dnnl::primitive_desc_base const& pd) { return std::string_view(pd.impl_info_str()).starts_with("ref"); }

/// The weight as oneDNN's dimensions: [K, C, R, S], or [G, K/G, C/G, R, S] when grouped.
Dims grouped(Dims w, std::int64_t groups) {
  if (groups == 1) return w;
  w[0] /= groups;
  w.insert(w.begin(), groups);
  return w;
}

std::string conv_shapes(Preparation const& p) {
  std::string s = "x=" + p.inputs()[0].shape.to_string() + " w=" + p.inputs()[1].shape.to_string();
  return s + " -> " + p.outputs()[0].shape.to_string();
}

/// Seconds one run of a convolution-like primitive takes on scratch data (the best of a few),
/// with the reorders its layouts need on every run: x in, y out, and the weight when it is
/// computed (a constant one is reordered once, when bound).
template <class Primitive>
double seconds_per_run(Preparation const& p, typename Primitive::primitive_desc const& pd, memory::desc const& x, memory::desc const& w,
                       memory::desc const& b, memory::desc const& y) {
  ThreadScope threads(p.threads());
  dnnl::stream s(engine());
  std::vector<memory> owned;
  auto scratch = [&](memory::desc const& d) {
    memory m(d, engine());
    float* f = static_cast<float*>(m.get_data_handle());  // small normal values: uninitialised memory may hold denormals
    std::fill(f, f + d.get_size() / sizeof(float), 0.01f);
    owned.push_back(m);
    return m;
  };
  std::vector<std::function<void()>> steps;
  auto operand = [&](memory::desc const& have, memory::desc const& want, bool per_run) {
    memory m = scratch(want);
    if (have == want) return m;
    memory from = scratch(have);
    dnnl::reorder r(from, m);
    if (per_run) steps.push_back([r, from, m, &s]() mutable { r.execute(s, from, m); });
    return m;
  };
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, operand(x, pd.src_desc(), true)},
                                       {DNNL_ARG_WEIGHTS, operand(w, pd.weights_desc(), !p.constant_input(1))}};
  if (!b.is_zero()) args.emplace(DNNL_ARG_BIAS, scratch(b));
  memory dst = scratch(pd.dst_desc());
  args.emplace(DNNL_ARG_DST, dst);
  if (pd.scratchpad_desc().get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, scratch(pd.scratchpad_desc()));
  steps.push_back([prim = Primitive(pd), &args, &s] { prim.execute(s, args); });
  if (pd.dst_desc() != y) {
    memory out = scratch(y);
    steps.push_back([r = dnnl::reorder(dst, out), dst, out, &s]() mutable { r.execute(s, dst, out); });
  }
  double best = INFINITY;
  for (int run = 0; run < 4; ++run) {  // the first warms the caches up
    auto start = std::chrono::steady_clock::now();
    for (auto const& step : steps) step();
    s.wait();
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (run > 0) best = std::min(best, t);
  }
  return best;
}

std::atomic<ConvLayout> conv_layout{ConvLayout::measured};

/// Whether the blocked candidate ran faster, measured once per signature and thread count in
/// the process (as the CUDA runtime picks its convolution algorithms).
bool blocked_is_faster(std::string const& signature, auto const& measure) {
  static std::mutex mutex;
  static std::unordered_map<std::string, bool> decided;
  std::lock_guard lock(mutex);
  auto [at, inserted] = decided.try_emplace(signature, false);
  if (inserted) at->second = measure();
  return at->second;
}

/// The steps of a convolution-like primitive (Conv, Deconv), in one of two layouts: x and y
/// as they lie (plain: oneDNN then mostly runs im2col + GEMM, x64:gemm:jit; channels-last: its
/// direct kernels on AVX-512, brgconv), or
/// reordered into the blocked layouts oneDNN picks for its direct kernels. Neither wins
/// everywhere; on one AVX-512 core with oneDNN 2.6.3 (reorders included):
///   3x3 64->64 at 56x56:    plain 4.05 ms, blocked 2.07 ms
///   1x1 256->64 at 56x56:   plain 0.89 ms, blocked 1.16 ms (the reorders cost more than they save)
///   1x1 512->2048 at 7x7:   plain 1.31 ms, blocked 0.94 ms
///   3x3 depthwise 144, 56x56: plain 2.07 ms, blocked 0.57 ms
/// so both are timed on scratch data, once per signature, unless set_conv_layout() forces one.
/// `signature` names everything but the shapes (attributes, bias).
///
/// `post_args`: the operands of binary post-ops (Conv2DEpilogue), read in the output's own
/// layout; the blocked candidate is then left out, since its output lies in a layout the
/// operands do not.
template <class Primitive, class MakeDesc>
void run_windowed(Preparation& p, std::string const& kind, std::string const& signature, memory::desc const& w_plain,
                  dnnl::primitive_attr const& attr, MakeDesc const& make_desc, bool bias, std::vector<Arg> post_args = {}) {
  memory::desc x = input_desc(p, 0), y = output_desc(p, 0);
  Dims w_dims = w_plain.dims();
  memory::desc b = bias ? plain(p.inputs()[2].shape) : memory::desc();
  using Pd = typename Primitive::primitive_desc;
  std::string what = kind + " " + conv_shapes(p);
  auto candidate = [&](bool blocked) -> std::optional<Pd> {
    try {
      ThreadScope threads(p.threads());
      Pd pd = blocked ? Pd(make_desc(any(x.dims()), any(w_dims), b, any(y.dims())), attr, engine()) : Pd(make_desc(x, any(w_dims), b, y), attr, engine());
      if (is_reference(pd)) return std::nullopt;  // a scalar loop, orders of magnitude slower than the JIT kernels
      return pd;
    } catch (dnnl::error const&) {
      return std::nullopt;
    }
  };
  ConvLayout forced = conv_layout.load();
  std::optional<Pd> flat = forced == ConvLayout::blocked ? std::nullopt : candidate(false);
  std::optional<Pd> blocked = forced == ConvLayout::plain || !post_args.empty() ? std::nullopt : candidate(true);
  std::optional<Pd> pd;
  if (flat && blocked)
    pd = blocked_is_faster(what + " " + signature + " c" + std::to_string(p.constant_input(1)) + " t" + std::to_string(p.threads()) + " l" +
                               std::to_string(static_cast<int>(p.input_layout(0))) + std::to_string(static_cast<int>(p.output_layout(0))),
                           [&] { return seconds_per_run<Primitive>(p, *blocked, x, w_plain, b, y) < seconds_per_run<Primitive>(p, *flat, x, w_plain, b, y); })
             ? blocked
             : flat;
  else
    pd = flat ? flat : blocked;
  // Neither has a JIT kernel: the reference one, as oneDNN offers it (or its reason for none).
  if (!pd) pd = or_reject(p, what, [&] { return Pd(make_desc(x, any(w_dims), b, y), attr, engine()); });
  std::vector<Arg> args{input_as(p, DNNL_ARG_SRC, 0, x, pd->src_desc()), input_as(p, DNNL_ARG_WEIGHTS, 1, w_plain, pd->weights_desc())};
  if (bias) args.push_back({DNNL_ARG_BIAS, b, From::input, 2});
  Arg out = output_as(p, DNNL_ARG_DST, 0, pd->dst_desc(), y);
  args.push_back(out);
  args.insert(args.end(), post_args.begin(), post_args.end());
  run_primitive<Primitive>(p, kind, *pd, std::move(args));
  finish_output(p, out, 0, y);
}

}  // namespace

void set_conv_layout(ConvLayout layout) { conv_layout.store(layout); }

namespace {

/// Conv2D, alone (`attr` its activation) or as an epilogue's producer (`attr` the chain,
/// `post_args` its operands).
void prepare_conv(Conv2D const& op, bool bias, dnnl::primitive_attr const& attr, std::vector<Arg> post_args, Preparation& p) {
  Dims w = grouped(dims_of(p.inputs()[1].shape), op.groups);
  memory::desc w_plain(w, memory::data_type::f32, op.groups == 1 ? tag::oihw : tag::goihw);
  Dims strides{op.stride[0], op.stride[1]}, dilates{op.dilation[0] - 1, op.dilation[1] - 1};  // oneDNN counts the gaps
  Dims pad_l{op.pad[0], op.pad[1]}, pad_r{op.pad[2], op.pad[3]};
  auto desc = [&](auto const& x, auto const& wd, auto const& b, auto const& y) {
    return dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x, wd, b, y, strides,
                                           dilates, pad_l, pad_r);
  };
  std::string kind = post_args.empty() ? "convolution" : "convolution with binary post-ops";  // before post_args moves
  run_windowed<dnnl::convolution_forward>(p, kind, op.attributes() + (bias ? " bias" : ""), w_plain, attr, desc, bias, std::move(post_args));
}

}  // namespace

void prepare(Conv2D const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  require_nonempty_inputs(p, "Conv2D");
  prepare_conv(op, p.inputs().size() == 3, with_activation(op.act), {}, p);
}

void prepare(Conv2DEpilogue const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  require_nonempty_inputs(p, "Conv2DEpilogue");
  // The operands are read in the output's layout: an operand that lies otherwise (a plain graph
  // input beside a channels-last output) is reordered into a workspace first, on every run.
  memory::desc y = output_desc(p, 0);
  std::vector<Arg> post_args;
  auto attr = with_epilogue(op, [&](std::size_t) { return y; }, post_args);
  for (Arg& a : post_args) a = input_as(p, a.id, a.index, input_desc(p, a.index), y);
  prepare_conv(op.producer, op.bias, attr, std::move(post_args), p);
}

void prepare(ConvTranspose2D const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  require_nonempty_inputs(p, "ConvTranspose2D");
  // Our weight is [C, M/G, R, S] (input channels first): oneDNN's [M, C, R, S] read as iohw.
  Shape const& ws = p.inputs()[1].shape;
  Dims w = op.groups == 1 ? Dims{ws[1], ws[0], ws[2], ws[3]} : Dims{op.groups, ws[1], ws[0] / op.groups, ws[2], ws[3]};
  memory::desc w_plain(w, memory::data_type::f32, op.groups == 1 ? tag::iohw : tag::giohw);
  Dims strides{op.stride[0], op.stride[1]}, dilates{op.dilation[0] - 1, op.dilation[1] - 1};
  // The output padding extends the output at the bottom/right: less cropping there.
  Dims pad_l{op.pad[0], op.pad[1]}, pad_r{op.pad[2] - op.output_padding[0], op.pad[3] - op.output_padding[1]};
  auto desc = [&](auto const& x, auto const& wd, auto const& b, auto const& y) {
    return dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, x, wd, b, y,
                                             strides, dilates, pad_l, pad_r);
  };
  run_windowed<dnnl::deconvolution_forward>(p, "deconvolution", op.attributes() + (p.inputs().size() == 3 ? " bias" : ""), w_plain,
                                            user_scratchpad(), desc, p.inputs().size() == 3);
}

namespace {

/// MatMul, alone (`epilogue` null: its activation) or as the producer of `epilogue`, whose
/// operands (of the output's shape, plain) then take the output's flattened oneDNN desc.
void prepare_matmul(MatMul const& op, bool has_bias, MatMulEpilogue const* epilogue, Preparation& p) {
  if (p.inputs()[0].numel() == 0 || p.inputs()[1].numel() == 0) {  // K = 0: every product is an empty sum
    if (epilogue) p.reject("MatMulEpilogue over K = 0 (an empty product): leave the chain unfused");
    if (!has_bias) return run_fill(p, "fill (a matrix product over K = 0)", 0, apply(op.act, 0.f));
    std::int64_t n = p.outputs()[0].shape[p.outputs()[0].shape.rank() - 1], rows = p.outputs()[0].numel() / n;
    return p.run("act(bias) (a matrix product over K = 0)", [act = op.act, n, rows](Io const& io) -> Runner {
      return [act, n, rows, bias = io.in[2], y = io.out[0]] {
        for (std::int64_t r = 0; r < rows; ++r)
          for (std::int64_t j = 0; j < n; ++j) y[r * n + j] = apply(act, bias[j]);
      };
    });
  }
  Shape ys = p.outputs()[0].shape, as = p.inputs()[0].shape, bs = p.inputs()[1].shape;
  // A linear layer over a batch ([..., M, K] @ [K, N], B without batch dimensions of its own)
  // is one [rows, K] @ [K, N] product: A and Y are dense row-major, so their batch dimensions
  // fold into M without moving data. As a 2-D problem oneDNN's matmul takes the constant weight
  // in its blocked layout (format_tag::any below); at rank 3 oneDNN 2.6 keeps it plain (its
  // verbose log shows wei abc for ViT-B/16's [1, 197, 768] @ [768, 3072]), which ran those
  // layers 1.04-1.18x slower (benchmark/README-tuned.md: "oneDNN plain B" against "blocked B").
  if (as.rank() > 2 && std::all_of(bs.begin(), bs.end() - 2, [](std::int64_t d) { return d == 1; })) {
    std::int64_t rows = as.numel() / as[as.rank() - 1];
    as = Shape{rows, as[as.rank() - 1]};
    bs = Shape{bs[bs.rank() - 2], bs[bs.rank() - 1]};
    ys = Shape{rows, ys[ys.rank() - 1]};
  }
  // oneDNN broadcasts batch dimensions of size 1 between operands of the same rank.
  auto at_output_rank = [&](Shape const& s) {
    std::vector<std::int64_t> d(ys.rank() - s.rank(), 1);
    d.insert(d.end(), s.begin(), s.end());
    return plain(Shape(d));
  };
  memory::desc a = at_output_rank(as), b = at_output_rank(bs), y = plain(ys);
  std::string what = "matmul a=" + p.inputs()[0].shape.to_string() + " b=" + p.inputs()[1].shape.to_string();
  // A constant b (a linear layer's weight) may take the layout oneDNN computes fastest with.
  memory::desc b_want = p.constant_input(1) ? any(b.dims()) : b;
  // The bias as oneDNN broadcasts it over dst: [1, ..., 1, N] (oneDNN matmul's bias argument).
  memory::desc bias = at_output_rank(has_bias ? p.inputs()[2].shape : Shape{});
  std::vector<Arg> post_args;
  dnnl::primitive_attr attr = epilogue ? with_epilogue(*epilogue, [&](std::size_t) { return y; }, post_args) : with_activation(op.act);
  auto pd = or_reject(p, what + (has_bias ? " with bias" : "") + (epilogue ? " with binary post-ops" : ""), [&] {
    return has_bias ? dnnl::matmul::primitive_desc({a, b_want, bias, y}, attr, engine())
                    : dnnl::matmul::primitive_desc({a, b_want, y}, attr, engine());
  });
  Arg weights = input_as(p, DNNL_ARG_WEIGHTS, 1, b, pd.weights_desc());  // may register a reorder step: before the matmul's
  std::vector<Arg> args{{DNNL_ARG_SRC, a, From::input, 0}, weights, {DNNL_ARG_DST, y, From::output, 0}};
  if (has_bias) args.push_back({DNNL_ARG_BIAS, bias, From::input, 2});
  args.insert(args.end(), post_args.begin(), post_args.end());
  // The step says when the weight left its plain layout (tests and `steps()` read it).
  std::string kind = pd.weights_desc() == b ? "matmul" : "matmul, blocked weights";
  run_primitive<dnnl::matmul>(p, epilogue ? kind + ", binary post-ops" : kind, pd, std::move(args));
}

}  // namespace

void prepare(MatMul const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  prepare_matmul(op, p.inputs().size() == 3, nullptr, p);
}

void prepare(MatMulEpilogue const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  prepare_matmul(op.producer, op.bias, &op, p);
}


}  // namespace autograph::cpu::builtin
