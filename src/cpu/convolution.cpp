// Conv2D, ConvTranspose2D and MatMul on oneDNN: convolution, deconvolution and matmul
// primitives, the bias and the fused activation (an eltwise post-op) in the same primitive.
// Weights are left to the primitive's preferred layout (format_tag::any): a constant weight
// is reordered once when bound, a computed one on every run into a workspace.
#include "primitive.hpp"

namespace autograph::cpu::builtin {
namespace {

using namespace detail;
using tag = memory::format_tag;

memory::desc any(Dims const& d) { return memory::desc(d, memory::data_type::f32, tag::any); }

dnnl::primitive_attr with_activation(Activation act) {
  dnnl::primitive_attr attr = user_scratchpad();
  if (act == Activation::none) return attr;
  dnnl::algorithm alg = act == Activation::relu      ? dnnl::algorithm::eltwise_relu
                        : act == Activation::sigmoid ? dnnl::algorithm::eltwise_logistic
                                                     : dnnl::algorithm::eltwise_tanh;
  dnnl::post_ops ops;
  ops.append_eltwise(1.f, alg, 0.f, 0.f);
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

/// The steps of a convolution-like primitive (Conv, Deconv) with plain x and y: on x and y as
/// they are, or, for grouped convolutions (`blocked`) and where oneDNN has only its reference
/// kernel for plain layouts, on x and y reordered into the layouts it picks. Measured with
/// oneDNN 2.6.3 on one AVX-512 core: a 3x3 depthwise convolution of 144x56x56 takes 2.07 ms
/// as x64:gemm:jit on plain layouts and 0.64 ms with the reorders (brdgmm_dw); a dense one
/// is as fast or faster on plain layouts, where the reorders cost more than the blocked
/// kernel saves (64->64 3x3 at 56x56: 2.9 vs 4.0 ms; 256->64 1x1: 0.9 vs 1.7 ms).
template <class Primitive, class MakeDesc>
void run_windowed(Preparation& p, std::string const& kind, memory::desc const& w_plain, dnnl::primitive_attr const& attr, bool blocked,
                  MakeDesc const& make_desc) {
  memory::desc x = plain(p.inputs()[0].shape), y = plain(p.outputs()[0].shape);
  Dims w_dims = w_plain.dims();
  bool bias = p.inputs().size() == 3;
  memory::desc b = bias ? plain(p.inputs()[2].shape) : memory::desc();
  using Pd = typename Primitive::primitive_desc;
  std::string what = kind + " " + conv_shapes(p);
  Pd pd = or_reject(p, what, [&] { return Pd(make_desc(x, any(w_dims), b, y), attr, engine()); });
  if (blocked || is_reference(pd))
    pd = or_reject(p, what, [&] { return Pd(make_desc(any(x.dims()), any(w_dims), b, any(y.dims())), attr, engine()); });
  std::vector<Arg> args{input_as(p, DNNL_ARG_SRC, 0, x, pd.src_desc()), input_as(p, DNNL_ARG_WEIGHTS, 1, w_plain, pd.weights_desc())};
  if (bias) args.push_back({DNNL_ARG_BIAS, b, From::input, 2});
  Arg out = output_as(p, DNNL_ARG_DST, 0, pd.dst_desc(), y);
  args.push_back(out);
  run_primitive<Primitive>(p, kind, pd, std::move(args));
  finish_output(p, out, 0, y);
}

}  // namespace

void prepare(Conv2D const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  require_nonempty_inputs(p, "Conv2D");
  Dims w = grouped(dims_of(p.inputs()[1].shape), op.groups);
  memory::desc w_plain(w, memory::data_type::f32, op.groups == 1 ? tag::oihw : tag::goihw);
  Dims strides{op.stride[0], op.stride[1]}, dilates{op.dilation[0] - 1, op.dilation[1] - 1};  // oneDNN counts the gaps
  Dims pad_l{op.pad[0], op.pad[1]}, pad_r{op.pad[2], op.pad[3]};
  auto desc = [&](auto const& x, auto const& wd, auto const& b, auto const& y) {
    return dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x, wd, b, y, strides,
                                           dilates, pad_l, pad_r);
  };
  run_windowed<dnnl::convolution_forward>(p, "convolution", w_plain, with_activation(op.act), op.groups > 1, desc);
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
  run_windowed<dnnl::deconvolution_forward>(p, "deconvolution", w_plain, user_scratchpad(), op.groups > 1, desc);
}

void prepare(MatMul const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  if (p.inputs()[0].numel() == 0 || p.inputs()[1].numel() == 0)  // K = 0: every product is an empty sum
    return run_fill(p, "fill (a matrix product over K = 0)", 0, apply(op.act, 0.f));
  Shape const& ys = p.outputs()[0].shape;
  // oneDNN broadcasts batch dimensions of size 1 between operands of the same rank.
  auto at_output_rank = [&](Shape const& s) {
    std::vector<std::int64_t> d(ys.rank() - s.rank(), 1);
    d.insert(d.end(), s.begin(), s.end());
    return plain(Shape(d));
  };
  memory::desc a = at_output_rank(p.inputs()[0].shape), b = at_output_rank(p.inputs()[1].shape), y = plain(ys);
  std::string what = "matmul a=" + p.inputs()[0].shape.to_string() + " b=" + p.inputs()[1].shape.to_string();
  // A constant b (a linear layer's weight) may take the layout oneDNN computes fastest with.
  memory::desc b_want = p.constant_input(1) ? any(b.dims()) : b;
  auto pd = or_reject(p, what, [&] { return dnnl::matmul::primitive_desc({a, b_want, y}, with_activation(op.act), engine()); });
  Arg weights = input_as(p, DNNL_ARG_WEIGHTS, 1, b, pd.weights_desc());  // may register a reorder step: before the matmul's
  run_primitive<dnnl::matmul>(p, "matmul", pd, {{DNNL_ARG_SRC, a, From::input, 0}, weights, {DNNL_ARG_DST, y, From::output, 0}});
}

}  // namespace autograph::cpu::builtin
