// The elementwise ops: binaries through oneDNN's binary primitive (which broadcasts its
// second operand only), unaries and Scale through eltwise, Identity and Reshape as copies.
// Our own loops where oneDNN has no equal: Pow, a broadcast first operand of Sub or Div,
// both operands broadcast, Erf and Reciprocal.
#include <algorithm>
#include <cmath>
#include <optional>

#include "autograph/runtime/cpu/strided.hpp"
#include "primitive.hpp"

namespace autograph::cpu::builtin {
namespace {

using namespace detail;
using dnnl::algorithm;

/// [numel]: elementwise work does not care about the shape.
memory::desc flat(Preparation const& p) { return plain(Shape{p.outputs()[0].numel()}); }

std::optional<algorithm> binary_algorithm(BinaryKind k) {
  switch (k) {
    case BinaryKind::add: return algorithm::binary_add;
    case BinaryKind::sub: return algorithm::binary_sub;
    case BinaryKind::mul: return algorithm::binary_mul;
    case BinaryKind::div: return algorithm::binary_div;
    case BinaryKind::max: return algorithm::binary_max;
    case BinaryKind::min: return algorithm::binary_min;
    case BinaryKind::pow: return std::nullopt;  // oneDNN 2.6's binary has no pow
  }
  return std::nullopt;
}

/// c = a (op) b over the output shape, operands read with NumPy broadcast strides; the
/// outermost dimension of more than one element (a batch of 1 leads most shapes) split among
/// the threads.
template <BinaryKind K>
void binary_loop(Shape const& as, Shape const& bs, Shape const& ys, float const* a, float const* b, float* c, int threads) {
  if (as == ys && bs == ys) {
    parallel_for(threads, ys.numel(), [&](std::int64_t i0, std::int64_t i1) {
      for (std::int64_t i = i0; i < i1; ++i) c[i] = apply(K, a[i], b[i]);
    });
    return;
  }
  Strides yst = strides_of(ys), ast = cpu::broadcast_strides(as, ys), bst = cpu::broadcast_strides(bs, ys);
  std::size_t d = 0;
  while (d + 1 < ys.rank() && ys[d] == 1) ++d;
  std::int64_t rows = ys.rank() == 0 ? 1 : ys[d];
  parallel_for(threads, rows, [&](std::int64_t r0, std::int64_t r1) {
    Shape part = ys;
    if (part.rank() > 0) part[d] = r1 - r0;
    cpu::for_each_index<3>(part, {yst, ast, bst}, [&, ap = a + r0 * ast[d], bp = b + r0 * bst[d], cp = c + r0 * yst[d]](auto const& o) {
      cp[o[0]] = apply(K, ap[o[1]], bp[o[2]]);
    });
  });
}

template <BinaryKind K>
void run_binary_loop(Preparation& p) {
  Shape as = p.inputs()[0].shape, bs = p.inputs()[1].shape, ys = p.outputs()[0].shape;
  int threads = p.threads();
  p.run(std::string(binary_name(K)) + " (own loop)", [=](Io const& io) -> Runner {
    return [=, a = io.in[0], b = io.in[1], c = io.out[0]] { binary_loop<K>(as, bs, ys, a, b, c, threads); };
  });
}

void run_own_binary(BinaryKind kind, Preparation& p) {
  switch (kind) {
    case BinaryKind::add: return run_binary_loop<BinaryKind::add>(p);
    case BinaryKind::sub: return run_binary_loop<BinaryKind::sub>(p);
    case BinaryKind::mul: return run_binary_loop<BinaryKind::mul>(p);
    case BinaryKind::div: return run_binary_loop<BinaryKind::div>(p);
    case BinaryKind::pow: return run_binary_loop<BinaryKind::pow>(p);
    case BinaryKind::max: return run_binary_loop<BinaryKind::max>(p);
    case BinaryKind::min: return run_binary_loop<BinaryKind::min>(p);
  }
}

/// y = f(x) elementwise with our own loop.
template <class F>
void run_map(Preparation& p, std::string what, F f) {
  std::int64_t n = p.outputs()[0].numel();
  int threads = p.threads();
  p.run(std::move(what), [=](Io const& io) -> Runner {
    return [=, x = io.in[0], y = io.out[0]] {
      parallel_for(threads, n, [&](std::int64_t i0, std::int64_t i1) {
        for (std::int64_t i = i0; i < i1; ++i) y[i] = f(x[i]);
      });
    };
  });
}

/// y = alg(x) through oneDNN's eltwise; `in_place` computes y = alg(y). Over [numel] when x and
/// y lie alike; otherwise computed in x's layout and reordered into y's.
void run_eltwise(Preparation& p, std::string const& name, algorithm alg, float alpha, float beta, bool in_place = false) {
  bool alike = in_place || p.input_layout(0) == p.output_layout(0);
  memory::desc d = alike ? flat(p) : input_desc(p, 0);
  auto pd = or_reject(p, "eltwise " + name + " of " + p.outputs()[0].shape.to_string(), [&] {
    return dnnl::eltwise_forward::primitive_desc({dnnl::prop_kind::forward_inference, alg, d, alpha, beta}, user_scratchpad(), engine());
  });
  Arg src = in_place ? Arg{DNNL_ARG_SRC, d, From::output, 0} : Arg{DNNL_ARG_SRC, d, From::input, 0};
  Arg out = alike ? Arg{DNNL_ARG_DST, d, From::output, 0} : output_as(p, DNNL_ARG_DST, 0, d, output_desc(p, 0));
  run_primitive<dnnl::eltwise_forward>(p, "eltwise " + name, pd, {src, out});
  if (!alike) finish_output(p, out, 0, output_desc(p, 0));
}

/// A binary of same-shape operands of which one lies channels-last (ops.hpp allows no other):
/// computed in the first operand's layout, the second reordered to it, y reordered if it lies
/// otherwise.
void run_laid_out_binary(Preparation& p, algorithm alg, std::string const& name) {
  memory::desc a = input_desc(p, 0), y = output_desc(p, 0);
  auto pd = or_reject(p, name + " " + p.outputs()[0].shape.to_string(), [&] { return dnnl::binary::primitive_desc({alg, a, a, a}, user_scratchpad(), engine()); });
  Arg b = input_as(p, DNNL_ARG_SRC_1, 1, input_desc(p, 1), a);  // may register a reorder step: before the binary's
  Arg out = output_as(p, DNNL_ARG_DST, 0, a, y);
  run_primitive<dnnl::binary>(p, name, pd, {{DNNL_ARG_SRC_0, a, From::input, 0}, b, out});
  finish_output(p, out, 0, y);
}

}  // namespace

void prepare_binary(BinaryKind kind, Preparation& p) {
  if (nothing_to_compute(p)) return;
  Shape ys = p.outputs()[0].shape;
  std::size_t first = 0, second = 1;
  bool commutative = kind == BinaryKind::add || kind == BinaryKind::mul || kind == BinaryKind::max || kind == BinaryKind::min;
  if (p.inputs()[0].shape != ys && commutative) std::swap(first, second);
  auto alg = binary_algorithm(kind);
  bool laid_out = p.input_layout(0) != Layout::plain || p.input_layout(1) != Layout::plain || p.output_layout(0) != Layout::plain;
  if (alg && laid_out) return run_laid_out_binary(p, *alg, "binary " + std::string(binary_name(kind)));
  if (!alg || p.inputs()[first].shape != ys) return run_own_binary(kind, p);
  // The second operand at the output's rank (leading dimensions of 1 broadcast).
  Shape bs = p.inputs()[second].shape;
  Dims b_dims(ys.rank() - bs.rank(), 1), own = dims_of(bs);
  if (bs.rank() > 0) b_dims.insert(b_dims.end(), own.begin(), own.end());
  if (ys.rank() == 0) b_dims = {1};
  memory::desc y = plain(ys), b = plain(Shape(b_dims));
  std::string name = "binary " + std::string(binary_name(kind));
  auto pd = or_reject(p, name + " " + ys.to_string() + " with " + bs.to_string(),
                      [&] { return dnnl::binary::primitive_desc({*alg, y, b, y}, user_scratchpad(), engine()); });
  run_primitive<dnnl::binary>(p, name, pd,
                {{DNNL_ARG_SRC_0, y, From::input, first}, {DNNL_ARG_SRC_1, b, From::input, second}, {DNNL_ARG_DST, y, From::output, 0}});
}

void prepare_unary(UnaryKind kind, float alpha, float beta, Preparation& p) {
  if (nothing_to_compute(p)) return;
  std::string name(unary_name(kind));
  switch (kind) {
    case UnaryKind::relu: return run_eltwise(p, name, algorithm::eltwise_relu, 0.f, 0.f);
    case UnaryKind::sigmoid: return run_eltwise(p, name, algorithm::eltwise_logistic, 0.f, 0.f);
    case UnaryKind::tanh: return run_eltwise(p, name, algorithm::eltwise_tanh, 0.f, 0.f);
    case UnaryKind::gelu: return run_eltwise(p, name, algorithm::eltwise_gelu_erf, 0.f, 0.f);
    case UnaryKind::exp: return run_eltwise(p, name, algorithm::eltwise_exp, 0.f, 0.f);
    case UnaryKind::log: return run_eltwise(p, name, algorithm::eltwise_log, 0.f, 0.f);
    case UnaryKind::sqrt: return run_eltwise(p, name, algorithm::eltwise_sqrt, 0.f, 0.f);
    case UnaryKind::abs: return run_eltwise(p, name, algorithm::eltwise_abs, 0.f, 0.f);
    case UnaryKind::neg: return run_eltwise(p, name, algorithm::eltwise_linear, -1.f, 0.f);
    case UnaryKind::leaky_relu: return run_eltwise(p, name, algorithm::eltwise_relu, alpha, 0.f);  // x > 0 ? x : alpha x
    case UnaryKind::clip: return run_eltwise(p, name, algorithm::eltwise_clip, alpha, beta);
    // clip(alpha x + beta, 0, 1): oneDNN 2.6 has no hardsigmoid; a linear, then a clip in place.
    // (oneDNN 2.6.3's eltwise with a clip post-op left NaN in the output here.)
    case UnaryKind::hard_sigmoid:
      run_eltwise(p, name, algorithm::eltwise_linear, alpha, beta);
      return run_eltwise(p, name, algorithm::eltwise_clip, 0.f, 1.f, true);
    case UnaryKind::hard_swish: return run_eltwise(p, name, algorithm::eltwise_hardswish, 0.f, 0.f);  // x relu6(x + 3) / 6
    // oneDNN has no erf; 1/x is one exact division, where oneDNN's pow(x, -1) is a general power.
    case UnaryKind::erf: return run_map(p, name + " (own loop)", [](float x) { return std::erf(x); });
    case UnaryKind::reciprocal: return run_map(p, name + " (own loop)", [](float x) { return 1.f / x; });
  }
}

void prepare(Scale const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  run_eltwise(p, "Scale", algorithm::eltwise_linear, op.scale, op.shift);
}

void prepare(Identity const&, Preparation& p) {
  if (nothing_to_compute(p)) return;
  run_copy(p, "copy", 0, 0);
}

void prepare(Reshape const&, Preparation& p) {
  if (nothing_to_compute(p)) return;
  run_copy(p, "copy", 0, 0);
}

}  // namespace autograph::cpu::builtin
