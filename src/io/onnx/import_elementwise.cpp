// ONNX translations for elementwise operators: activations, arithmetic (folded when constant),
// and the comparisons and logic that only shape arithmetic uses (see detail/import_ops.hpp).
#include "autograph/io/onnx/detail/import_ops.hpp"

namespace autograph::onnx_detail {
namespace {

// ---- elementwise ------------------------------------------------------------------------------

template <class Op, FoldUnary F>
void unary(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({});
  if (try_fold(c, [&] { return onnx_detail::unary(F, c.constant(0, "x"), c.label()); })) return;
  c.output(0, c.add(Op{}, {c.value(0)}));
}

/// Operators only computed at import time (rounding, logic on shapes).
template <FoldUnary F>
void unary_fold_only(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({});
  c.output(0, onnx_detail::unary(F, c.constant(0, "its input"), c.label()));
  c.note_folded();
}

void leaky_relu(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({"alpha"});
  c.output(0, c.add(LeakyRelu{c.attr().f("alpha", 0.01f), 0.f}, {c.value(0)}));
}
void hard_sigmoid(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({"alpha", "beta"});
  c.output(0, c.add(HardSigmoid{c.attr().f("alpha", 0.2f), c.attr().f("beta", 0.5f)}, {c.value(0)}));
}
void hard_swish(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({});
  c.output(0, c.add(HardSwish{}, {c.value(0)}));
}

void clip(ImportContext& c) {
  float lo = -std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::max();
  if (c.opset < 11) {
    c.arity(1, 1);
    c.attr().only({"min", "max", "consumed_inputs"});
    lo = c.attr().f("min", lo);
    hi = c.attr().f("max", hi);
  } else {
    c.arity(1, 3);
    c.attr().only({});
    if (c.has_input(1)) lo = to_float(c.scalar(1, "min"));
    if (c.has_input(2)) hi = to_float(c.scalar(2, "max"));
  }
  if (c.is_constant(0)) {
    Constant const& x = c.constant(0, "x");
    if (!x.is_float()) throw OnnxUnsupportedError(c.label() + ": Clip of an integer tensor is not supported");
    c.output(0, map_data(x, x.shape, [&](auto in, auto out) {
      for (std::size_t i = 0; i < in.size(); ++i) out[i] = std::min(std::max(static_cast<float>(in[i]), lo), hi);
    }));
    c.note_folded();
    return;
  }
  c.output(0, c.add(Clip{lo, hi}, {c.value(0)}));
}

/// Gelu (opset 20, or com.microsoft): exact (erf) or the tanh approximation
/// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), built from built-in ops.
void gelu(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({"approximate"});
  std::string approx = c.attr().s("approximate", "none");
  Value x = c.value(0);
  if (approx == "none") {
    c.output(0, c.add(Gelu{}, {x}));
  } else if (approx == "tanh") {
    Value x3 = c.add(Mul{}, {c.add(Mul{}, {x, x}, "x2"), x}, "x3");
    Value inner = c.add(Add{}, {x, c.add(Scale{0.044715f, 0.f}, {x3}, "cubic")}, "inner");
    Value t = c.add(Tanh{}, {c.add(Scale{static_cast<float>(std::sqrt(2.0 / std::numbers::pi)), 0.f}, {inner}, "scaled")}, "tanh");
    Value half = c.add(Scale{0.5f, 0.5f}, {t}, "half");  // (1 + t) / 2
    c.output(0, c.add(Mul{}, {x, half}));
  } else {
    throw OnnxImportError(c.label() + ": unknown approximate '" + approx + "'");
  }
}

/// Before opset 7, broadcast=1 with an axis places B's dimensions at A's dimension `axis`
/// (NumPy aligns from the back instead); B gets trailing 1s so NumPy rules place it there.
/// Returns B's shape for NumPy broadcasting, or nullopt when no change is needed.
std::optional<Shape> legacy_broadcast_shape(ImportContext& c) {
  c.attr().only({"broadcast", "axis", "consumed_inputs"});
  if (c.opset >= 7 || !c.attr().has("axis") || c.attr().i("broadcast", 0) == 0) return std::nullopt;
  Shape a = c.input_shape(0), b = c.input_shape(1);
  std::size_t axis = axis_of(c.attr().i("axis", 0), a.rank(), c.label());
  if (axis + b.rank() > a.rank()) throw OnnxImportError(c.label() + ": B " + b.to_string() + " does not fit into A " + a.to_string() + " at its axis");
  std::vector<std::int64_t> dims(b.begin(), b.end());
  dims.resize(a.rank() - axis, 1);
  return Shape(dims);
}

template <class Op, FoldBinary F>
void binary(ImportContext& c) {
  c.arity(2, 2);
  auto legacy = legacy_broadcast_shape(c);
  if (c.all_constant()) {
    Constant b = c.constant(1, "b");
    if (legacy) b = with_shape(b, *legacy);
    c.output(0, onnx_detail::binary(F, c.constant(0, "a"), b, c.label()));
    c.note_folded();
    return;
  }
  Value a = c.value(0);
  Value b = F == FoldBinary::pow && c.is_constant(1) ? c.materialize(c.input_name(1), c.constant(1, "exponent"), true) : c.value(1);
  if (legacy) b = reshape_to(c, b, *legacy, "b_aligned");
  c.output(0, c.add(Op{}, {a, b}));
}

/// Comparisons and logic: they make bool tensors, which only exist at import time.
template <FoldBinary F>
void binary_fold_only(ImportContext& c) {
  c.arity(2, 2);
  c.attr().only({"broadcast", "axis", "fmod"});
  if (c.attr().has("axis")) throw OnnxUnsupportedError(c.label() + ": legacy broadcasting with an axis is not supported");
  if (F == FoldBinary::mod && c.attr().i("fmod", 0) == 0) {
    Constant const& a = c.constant(0, "a");
    Constant const& b = c.constant(1, "b");
    if (a.is_float() || b.is_float()) throw OnnxImportError(c.label() + ": Mod of floats needs fmod=1");
    // Integer Mod with fmod=0 takes the sign of the divisor (Python's %).
    Constant r = onnx_detail::binary(FoldBinary::mod, a, b, c.label());
    Constant d = expand(b, std::vector<std::int64_t>(r.shape.begin(), r.shape.end()), c.label());
    for (std::size_t i = 0; i < r.ints.size(); ++i)
      if (r.ints[i] != 0 && ((r.ints[i] < 0) != (d.ints[i] < 0))) r.ints[i] += d.ints[i];
    c.output(0, r);
  } else {
    c.output(0, onnx_detail::binary(F, c.constant(0, "a"), c.constant(1, "b"), c.label()));
  }
  c.note_folded();
}

/// Max, Min, Sum, Mean: variadic, folded or chained pairwise.
template <class Op, FoldBinary F>
void variadic(ImportContext& c) {
  c.arity(1, 1 << 16);
  c.attr().only({"consumed_inputs"});
  bool mean = F == FoldBinary::div;  // Mean: a sum, then divided by the count
  constexpr FoldBinary step = F == FoldBinary::div ? FoldBinary::add : F;
  float n = static_cast<float>(c.num_inputs());
  if (c.all_constant()) {
    Constant acc = c.constant(0, "input 0");
    for (int i = 1; i < c.num_inputs(); ++i) acc = onnx_detail::binary(step, acc, c.constant(i, "input " + std::to_string(i)), c.label());
    if (mean) acc = onnx_detail::binary(FoldBinary::div, acc, Constant::of_floats(Shape{}, {n}), c.label());
    c.output(0, acc);
    c.note_folded();
    return;
  }
  Value acc = c.value(0);
  for (int i = 1; i < c.num_inputs(); ++i) acc = c.add(Op{}, {acc, c.value(i)}, "step" + std::to_string(i));
  if (mean) acc = c.add(Scale{1.f / n, 0.f}, {acc}, "mean");
  else if (c.num_inputs() == 1) acc = c.add(Identity{}, {acc});
  c.output(0, acc);
}

void where(ImportContext& c) {
  c.arity(3, 3);
  c.attr().only({});
  c.output(0, onnx_detail::where(c.constant(0, "condition"), c.constant(1, "x"), c.constant(2, "y"), c.label()));
  c.note_folded();
}

}  // namespace

void add_elementwise_translations(TranslationTable& t) {
  t.emplace("Relu", OpEntry{unary<Relu, FoldUnary::relu>});
  t.emplace("Sigmoid", OpEntry{unary<Sigmoid, FoldUnary::sigmoid>});
  t.emplace("Tanh", OpEntry{unary<Tanh, FoldUnary::tanh>});
  t.emplace("Erf", OpEntry{unary<Erf, FoldUnary::erf>});
  t.emplace("Sqrt", OpEntry{unary<Sqrt, FoldUnary::sqrt>});
  t.emplace("Exp", OpEntry{unary<Exp, FoldUnary::exp>});
  t.emplace("Log", OpEntry{unary<Log, FoldUnary::log>});
  t.emplace("Neg", OpEntry{unary<Neg, FoldUnary::neg>});
  t.emplace("Abs", OpEntry{unary<Abs, FoldUnary::abs>});
  t.emplace("Reciprocal", OpEntry{unary<Reciprocal, FoldUnary::reciprocal>});
  t.emplace("LeakyRelu", OpEntry{leaky_relu});
  t.emplace("HardSigmoid", OpEntry{hard_sigmoid});
  t.emplace("HardSwish", OpEntry{hard_swish});
  t.emplace("Clip", OpEntry{clip});
  t.emplace("Gelu", OpEntry{gelu});
  t.emplace("com.microsoft:Gelu", OpEntry{gelu});
  t.emplace("Add", OpEntry{binary<Add, FoldBinary::add>});
  t.emplace("Sub", OpEntry{binary<Sub, FoldBinary::sub>});
  t.emplace("Mul", OpEntry{binary<Mul, FoldBinary::mul>});
  t.emplace("Div", OpEntry{binary<Div, FoldBinary::div>});
  t.emplace("Pow", OpEntry{binary<Pow, FoldBinary::pow>});
  t.emplace("Max", OpEntry{variadic<Max, FoldBinary::max>});
  t.emplace("Min", OpEntry{variadic<Min, FoldBinary::min>});
  t.emplace("Sum", OpEntry{variadic<Add, FoldBinary::add>});
  t.emplace("Mean", OpEntry{variadic<Add, FoldBinary::div>});
  t.emplace("Where", OpEntry{where, true});
  t.emplace("Equal", OpEntry{binary_fold_only<FoldBinary::equal>, true});
  t.emplace("Less", OpEntry{binary_fold_only<FoldBinary::less>, true});
  t.emplace("Greater", OpEntry{binary_fold_only<FoldBinary::greater>, true});
  t.emplace("LessOrEqual", OpEntry{binary_fold_only<FoldBinary::less_equal>, true});
  t.emplace("GreaterOrEqual", OpEntry{binary_fold_only<FoldBinary::greater_equal>, true});
  t.emplace("And", OpEntry{binary_fold_only<FoldBinary::logical_and>, true});
  t.emplace("Or", OpEntry{binary_fold_only<FoldBinary::logical_or>, true});
  t.emplace("Mod", OpEntry{binary_fold_only<FoldBinary::mod>, true});
  t.emplace("Not", OpEntry{unary_fold_only<FoldUnary::logical_not>, true});
  t.emplace("Floor", OpEntry{unary_fold_only<FoldUnary::floor>, true});
  t.emplace("Ceil", OpEntry{unary_fold_only<FoldUnary::ceil>, true});
  t.emplace("Round", OpEntry{unary_fold_only<FoldUnary::round>, true});
}

}  // namespace autograph::onnx_detail
