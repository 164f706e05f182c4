// ONNX translations for shapes and data movement, reductions, pass-through operators and the
// import-time constant arithmetic (see detail/import_ops.hpp).
#include "autograph/io/onnx/detail/import_ops.hpp"

namespace autograph::onnx_detail {
namespace {

// ---- shape and data movement -------------------------------------------------------------------

/// The output dims of Reshape: 0 copies the input dim (unless allowzero), -1 is inferred.
std::vector<std::int64_t> reshape_dims(ImportContext& c, Shape const& x, std::vector<std::int64_t> dims, bool allowzero) {
  std::int64_t known = 1;
  int infer = -1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0 && !allowzero) {
      if (i >= x.rank()) throw OnnxImportError(c.label() + ": shape " + dims_string(dims) + " copies dimension " + std::to_string(i) + " of " + x.to_string());
      dims[i] = x[i];
    }
    if (dims[i] == -1) {
      if (infer >= 0) throw OnnxImportError(c.label() + ": shape " + dims_string(dims) + " has more than one -1");
      infer = static_cast<int>(i);
      continue;
    }
    if (dims[i] < 0 || dims[i] > max_elements) throw OnnxImportError(c.label() + ": invalid shape " + dims_string(dims));
    if (dims[i] != 0 && known > max_elements / dims[i]) throw OnnxImportError(c.label() + ": shape " + dims_string(dims) + " is too large");
    known *= dims[i];
  }
  if (infer >= 0) {
    if (known == 0 || x.numel() % known != 0)
      throw OnnxImportError(c.label() + ": cannot reshape " + x.to_string() + " to " + dims_string(dims));
    dims[static_cast<std::size_t>(infer)] = x.numel() / known;
  } else if (known != x.numel()) {
    throw OnnxImportError(c.label() + ": cannot reshape " + x.to_string() + " (" + std::to_string(x.numel()) + " elements) to " + dims_string(dims));
  }
  if (dims.size() > Shape::max_rank) throw OnnxUnsupportedError(c.label() + ": more than 8 dimensions");
  return dims;
}

/// Output 0 is input 0 with new dims: folded for a constant, a Reshape node otherwise.
void reshape_output(ImportContext& c, std::vector<std::int64_t> const& dims) {
  if (c.is_constant(0)) {
    c.output(0, with_shape(c.constant(0, "data"), Shape(dims)));
    c.note_folded();
    return;
  }
  Value x = c.value(0);
  c.output(0, c.shape(x) == Shape(dims) ? x : c.add(Reshape{dims}, {x}));
}

void reshape(ImportContext& c) {
  std::vector<std::int64_t> target;
  if (c.opset < 5) {
    c.arity(1, 1);
    c.attr().only({"shape", "consumed_inputs"});
    target = c.attr().ints("shape");
  } else {
    c.arity(2, 2);
    c.attr().only({"allowzero"});
    target = c.ints(1, "the shape");
  }
  reshape_output(c, reshape_dims(c, c.input_shape(0), target, c.attr().i("allowzero", 0) != 0));
}

void flatten(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({"axis"});
  Shape x = c.input_shape(0);
  std::int64_t axis = c.attr().i("axis", 1), r = static_cast<std::int64_t>(x.rank());
  if (axis < -r || axis > r) throw OnnxImportError(c.label() + ": axis " + std::to_string(axis) + " is out of range for " + x.to_string());
  if (axis < 0) axis += r;
  std::int64_t outer = 1;
  for (std::int64_t d = 0; d < axis; ++d) outer *= x[static_cast<std::size_t>(d)];
  reshape_output(c, {outer, outer == 0 ? 0 : x.numel() / outer});
}


void squeeze(ImportContext& c) {
  c.arity(1, c.opset >= 13 ? 2 : 1);
  c.attr().only({"axes"});
  Shape x = c.input_shape(0);
  auto axes = axes_input(c, 13);
  std::vector<bool> drop(x.rank(), false);
  if (axes.empty()) {
    for (std::size_t d = 0; d < x.rank(); ++d) drop[d] = x[d] == 1;
  }
  for (auto a : axes) {
    std::size_t d = axis_of(a, x.rank(), c.label());
    if (x[d] != 1) throw OnnxImportError(c.label() + ": cannot squeeze axis " + std::to_string(a) + " of " + x.to_string());
    drop[d] = true;
  }
  std::vector<std::int64_t> dims;
  for (std::size_t d = 0; d < x.rank(); ++d)
    if (!drop[d]) dims.push_back(x[d]);
  reshape_output(c, dims);
}

void unsqueeze(ImportContext& c) {
  c.arity(1, c.opset >= 13 ? 2 : 1);
  c.attr().only({"axes"});
  Shape x = c.input_shape(0);
  auto axes = axes_input(c, 13);
  std::size_t r = x.rank() + axes.size();
  if (r > Shape::max_rank) throw OnnxUnsupportedError(c.label() + ": more than 8 dimensions");
  std::vector<bool> added(r, false);
  for (auto a : axes) {
    std::size_t d = axis_of(a, r, c.label());
    if (added[d]) throw OnnxImportError(c.label() + ": axis " + std::to_string(a) + " is listed twice");
    added[d] = true;
  }
  std::vector<std::int64_t> dims;
  std::size_t from = 0;
  for (std::size_t d = 0; d < r; ++d) dims.push_back(added[d] ? 1 : x[from++]);
  reshape_output(c, dims);
}

void transpose_op(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({"perm"});
  auto perm = c.attr().ints("perm");
  if (try_fold(c, [&] { return transpose(c.constant(0, "data"), perm, c.label()); })) return;
  Value x = c.value(0);
  if (perm.empty())
    for (std::size_t i = c.shape(x).rank(); i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
  c.output(0, c.add(Transpose{perm}, {x}));
}

void concat(ImportContext& c) {
  c.arity(1, 1 << 16);
  c.attr().only({"axis"});
  if (!c.attr().has("axis") && c.opset >= 4) throw OnnxImportError(c.label() + ": attribute 'axis' is required");
  std::int64_t axis = c.attr().i("axis", 1);
  if (c.all_constant()) {
    std::vector<Constant> xs;
    for (int i = 0; i < c.num_inputs(); ++i)
      if (c.has_input(i)) xs.push_back(c.constant(i, "input"));
    c.output(0, onnx_detail::concat(xs, axis, c.label()));
    c.note_folded();
    return;
  }
  std::vector<Value> in;
  for (int i = 0; i < c.num_inputs(); ++i)
    if (c.has_input(i)) in.push_back(c.value(i));
  c.output(0, in.size() == 1 ? c.add(Identity{}, in) : c.add(Concat{axis}, in));
}

void split(ImportContext& c) {
  c.arity(1, c.opset >= 13 ? 2 : 1);
  c.attr().only({"axis", "split", "num_outputs"});
  Shape x = c.input_shape(0);
  std::int64_t axis = c.attr().i("axis", 0);
  std::size_t a = axis_of(axis, x.rank(), c.label());
  std::vector<std::int64_t> sizes = c.opset >= 13 ? c.ints(1, "split") : c.attr().ints("split");
  std::int64_t n = c.node().output_size();
  if (sizes.empty()) {
    std::int64_t parts = c.attr().i("num_outputs", n);
    if (parts != n || parts < 1) throw OnnxImportError(c.label() + ": num_outputs " + std::to_string(parts) + " but " + std::to_string(n) + " outputs");
    // Equal parts; opset 18 lets the last one be smaller when the axis does not divide.
    std::int64_t each = (x[a] + parts - 1) / parts;
    if (c.opset < 18 && x[a] % parts != 0)
      throw OnnxImportError(c.label() + ": axis of " + std::to_string(x[a]) + " does not split into " + std::to_string(parts) + " equal parts");
    for (std::int64_t i = 0; i < parts; ++i) sizes.push_back(std::max<std::int64_t>(0, std::min(each, x[a] - i * each)));
  }
  if (static_cast<std::int64_t>(sizes.size()) != n)
    throw OnnxImportError(c.label() + ": " + std::to_string(sizes.size()) + " split sizes for " + std::to_string(n) + " outputs");
  std::int64_t total = 0;
  for (auto s : sizes) {
    if (s < 0 || s > x[a]) throw OnnxImportError(c.label() + ": invalid split " + dims_string(sizes) + " of " + x.to_string());
    total += s;
  }
  if (total != x[a]) throw OnnxImportError(c.label() + ": split " + dims_string(sizes) + " does not add up to " + std::to_string(x[a]));
  if (c.is_constant(0)) {
    auto parts = onnx_detail::split(c.constant(0, "input"), axis, sizes, c.label());
    for (std::size_t i = 0; i < parts.size(); ++i) c.output(static_cast<int>(i), parts[i]);
    c.note_folded();
    return;
  }
  Value y = c.add(Split{axis, sizes}, {c.value(0)});
  for (std::uint32_t i = 0; i < sizes.size(); ++i) c.output(static_cast<int>(i), Value{y.node, i});
}

void slice(ImportContext& c) {
  std::vector<std::int64_t> starts, ends, axes, steps;
  if (c.opset < 10) {
    c.arity(1, 1);
    c.attr().only({"starts", "ends", "axes"});
    starts = c.attr().ints("starts");
    ends = c.attr().ints("ends");
    axes = c.attr().ints("axes");
  } else {
    c.arity(3, 5);
    c.attr().only({});
    starts = c.ints(1, "starts");
    ends = c.ints(2, "ends");
    axes = c.ints(3, "axes");
    steps = c.ints(4, "steps");
  }
  if (c.is_constant(0)) {
    c.output(0, onnx_detail::slice(c.constant(0, "data"), starts, ends, axes, steps, c.label()));
    c.note_folded();
    return;
  }
  Value x = c.value(0);
  Shape xs = c.shape(x);
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (ends.size() != starts.size() || axes.size() != starts.size() || (!steps.empty() && steps.size() != starts.size()))
    throw OnnxImportError(c.label() + ": starts, ends, axes and steps differ in length");
  for (auto s : steps)
    if (s <= 0) throw OnnxUnsupportedError(c.label() + ": a step of " + std::to_string(s) + " on a runtime tensor is not supported (steps must be > 0)");
  std::vector<bool> seen(xs.rank());
  for (auto a : axes) {
    std::size_t d = axis_of(a, xs.rank(), c.label());
    if (seen[d]) throw OnnxImportError(c.label() + ": axis " + std::to_string(a) + " is sliced twice");
    seen[d] = true;
  }
  c.output(0, c.add(Slice{axes, starts, ends, steps}, {x}));
}

/// Gather of a runtime tensor with constant indices: one Slice per index (a single Slice for
/// an evenly spaced increasing run), concatenated, then reshaped to the indices' shape.
void gather(ImportContext& c) {
  c.arity(2, 2);
  c.attr().only({"axis"});
  std::int64_t axis = c.attr().i("axis", 0);
  if (try_fold(c, [&] { return onnx_detail::gather(c.constant(0, "data"), c.constant(1, "indices"), axis, c.label()); })) return;
  Constant const& idx = c.constant(1, "indices");
  if (idx.is_float()) throw OnnxImportError(c.label() + ": indices must be integers");
  Value x = c.value(0);
  Shape xs = c.shape(x);
  std::size_t a = axis_of(axis, xs.rank(), c.label());
  std::int64_t n = xs[a];
  std::vector<std::int64_t> ids = idx.ints;
  for (auto& i : ids) {
    if (i < -n || i >= n) throw OnnxImportError(c.label() + ": index " + std::to_string(i) + " is out of range for " + xs.to_string());
    if (i < 0) i += n;
  }
  if (ids.empty()) throw OnnxUnsupportedError(c.label() + ": Gather with no indices is not supported");
  std::vector<std::int64_t> dims(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(a));
  dims.insert(dims.end(), idx.shape.begin(), idx.shape.end());
  dims.insert(dims.end(), xs.begin() + static_cast<std::ptrdiff_t>(a) + 1, xs.end());
  if (dims.size() > Shape::max_rank) throw OnnxUnsupportedError(c.label() + ": more than 8 dimensions");
  auto ax = static_cast<std::int64_t>(a);
  bool run = ids.size() == 1 || (ids[1] > ids[0]);
  for (std::size_t i = 2; run && i < ids.size(); ++i) run = ids[i] - ids[i - 1] == ids[1] - ids[0];
  Value y;
  if (run) {
    std::int64_t step = ids.size() > 1 ? ids[1] - ids[0] : 1;
    y = c.add(Slice{{ax}, {ids[0]}, {ids.back() + 1}, {step}}, {x}, "slice");
  } else {
    std::vector<Value> parts;
    for (std::size_t i = 0; i < ids.size(); ++i)
      parts.push_back(c.add(Slice{{ax}, {ids[i]}, {ids[i] + 1}, {}}, {x}, "slice" + std::to_string(i)));
    y = c.add(Concat{ax}, parts, "concat");
  }
  c.output(0, reshape_to(c, y, Shape(dims)));
}

void pad(ImportContext& c) {
  std::vector<std::int64_t> pads;
  float value = 0.f;
  std::string mode = c.attr().s("mode", "constant");
  Shape xs = c.input_shape(0);
  if (c.opset < 11) {
    c.arity(1, 1);
    c.attr().only({"mode", "pads", "paddings", "value"});
    pads = c.attr().ints(c.attr().has("paddings") ? "paddings" : "pads");
    value = c.attr().f("value", 0.f);
  } else {
    c.arity(2, 4);
    c.attr().only({"mode"});
    pads = c.ints(1, "pads");
    if (c.has_input(2)) value = to_float(c.scalar(2, "constant_value"));
    if (c.has_input(3)) {  // opset 18: pads for the listed axes only
      auto axes = c.ints(3, "axes");
      if (pads.size() != 2 * axes.size()) throw OnnxImportError(c.label() + ": pads and axes do not match");
      std::vector<std::int64_t> full(2 * xs.rank(), 0);
      for (std::size_t i = 0; i < axes.size(); ++i) {
        std::size_t d = axis_of(axes[i], xs.rank(), c.label());
        full[d] = pads[i];
        full[xs.rank() + d] = pads[axes.size() + i];
      }
      pads = full;
    }
  }
  if (mode != "constant") throw OnnxUnsupportedError(c.label() + ": mode '" + mode + "' is not supported (only constant padding)");
  if (pads.size() != 2 * xs.rank()) throw OnnxImportError(c.label() + ": " + std::to_string(pads.size()) + " pads for " + xs.to_string());
  for (auto p : pads)
    if (p < -max_elements || p > (std::int64_t{1} << 31)) throw OnnxImportError(c.label() + ": pad " + std::to_string(p) + " is out of range");
  // Negative pads crop: a Slice first, then the non-negative part as a Pad.
  std::vector<std::int64_t> starts, ends, axes, positive = pads;
  for (std::size_t d = 0; d < xs.rank(); ++d) {
    std::int64_t b = pads[d], e = pads[xs.rank() + d];
    if (b < 0 || e < 0) {
      axes.push_back(static_cast<std::int64_t>(d));
      starts.push_back(std::max<std::int64_t>(-b, 0));
      ends.push_back(xs[d] - std::max<std::int64_t>(-e, 0));
      if (starts.back() > ends.back()) throw OnnxImportError(c.label() + ": pads crop more than all of " + xs.to_string());
      positive[d] = std::max<std::int64_t>(b, 0);
      positive[xs.rank() + d] = std::max<std::int64_t>(e, 0);
    }
  }
  Value x = c.value(0);
  if (!axes.empty()) x = c.add(Slice{axes, starts, ends, {}}, {x}, "crop");
  bool any = std::ranges::any_of(positive, [](auto p) { return p != 0; });
  c.output(0, any || axes.empty() ? c.add(Pad{positive, value}, {x}) : x);
}

// ---- reductions -------------------------------------------------------------------------------

template <ReduceKind K>
void reduce(ImportContext& c) {
  // ReduceSum takes axes as an input from opset 13, ReduceMean from opset 18.
  int since = K == ReduceKind::sum ? 13 : 18;
  c.arity(1, c.opset >= since ? 2 : 1);
  c.attr().only({"axes", "keepdims", "noop_with_empty_axes"});
  auto axes = axes_input(c, since);
  bool keepdims = c.attr().i("keepdims", 1) != 0;
  bool noop = axes.empty() && c.attr().i("noop_with_empty_axes", 0) != 0;
  Shape xs = c.input_shape(0);
  std::vector<bool> seen(xs.rank());
  for (auto a : axes) {
    std::size_t d = axis_of(a, xs.rank(), c.label());
    if (seen[d]) throw OnnxImportError(c.label() + ": axis " + std::to_string(a) + " is listed twice");
    seen[d] = true;
  }
  if (c.is_constant(0)) {
    Constant const& x = c.constant(0, "data");
    c.output(0, noop ? x : onnx_detail::reduce(K == ReduceKind::sum ? FoldReduce::sum : FoldReduce::mean, x, axes, keepdims, c.label()));
    c.note_folded();
    return;
  }
  Value x = c.value(0);
  c.output(0, noop ? c.add(Identity{}, {x}) : c.add(Reduce{K, axes, keepdims}, {x}));
}

template <FoldReduce K>
void reduce_fold_only(ImportContext& c) {
  c.arity(1, 2);
  c.attr().only({"axes", "keepdims", "noop_with_empty_axes"});
  auto axes = c.has_input(1) ? c.ints(1, "axes") : c.attr().ints("axes");
  Constant const& x = c.constant(0, "data");
  bool noop = axes.empty() && c.attr().i("noop_with_empty_axes", 0) != 0;
  c.output(0, noop ? x : onnx_detail::reduce(K, x, axes, c.attr().i("keepdims", 1) != 0, c.label()));
  c.note_folded();
}

// ---- pass-through -----------------------------------------------------------------------------

/// Identity: the output is the input itself (no node).
void identity(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({});
  c.output(0, c.input(0));
}

void dropout(ImportContext& c) {
  c.arity(1, 3);
  c.attr().only({"ratio", "is_test", "seed", "consumed_inputs"});
  if (c.has_input(2) && c.scalar(2, "training_mode") != 0) throw OnnxUnsupportedError(c.label() + ": training_mode=true is not supported (inference only)");
  c.output(0, c.input(0));
  c.unavailable_from(1, "(the dropout mask) is not supported");
}

void cast_op(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({"to", "saturate"});
  std::int64_t to = c.attr().i("to", 0);
  if (c.is_constant(0)) {
    c.output(0, cast(c.constant(0, "input"), static_cast<int>(to)));
    c.note_folded();
    return;
  }
  if (to != ::onnx::TensorProto::FLOAT)
    throw OnnxUnsupportedError(c.label() + ": Cast of a runtime tensor to " + dtype_name(static_cast<int>(to)) + " is not supported (runtime tensors are float32)");
  c.output(0, c.input(0));
}

// ---- import-time only: constants and shape arithmetic -----------------------------------------

void constant(ImportContext& c) {
  c.arity(0, 0);
  c.attr().only({"value", "value_float", "value_floats", "value_int", "value_ints", "sparse_value", "value_string", "value_strings"});
  auto const& a = c.attr();
  if (auto const* t = a.tensor("value")) c.output(0, to_constant(*t, c.label() + " value"));
  else if (a.has("value_float")) c.output(0, Constant::of_floats(Shape{}, {a.f("value_float", 0)}));
  else if (a.has("value_floats")) {
    auto v = a.floats("value_floats");
    c.output(0, Constant::of_floats(Shape{static_cast<std::int64_t>(v.size())}, v));
  } else if (a.has("value_int")) c.output(0, Constant::of_ints(Shape{}, {a.i("value_int", 0)}));
  else if (a.has("value_ints")) {
    auto v = a.ints("value_ints");
    c.output(0, Constant::of_ints(Shape{static_cast<std::int64_t>(v.size())}, v));
  } else if (a.has("sparse_value") || a.has("value_string") || a.has("value_strings")) {
    throw OnnxUnsupportedError(c.label() + ": sparse and string constants are not supported");
  } else {
    throw OnnxImportError(c.label() + ": no value");
  }
  c.note_folded();
}

void constant_of_shape(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({"value"});
  Constant value = Constant::of_floats(Shape{1}, {0.f});
  if (auto const* t = c.attr().tensor("value")) value = to_constant(*t, c.label() + " value");
  c.output(0, filled(c.ints(0, "the shape"), value, c.label()));
  c.note_folded();
}

void shape_op(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({"start", "end"});
  Shape s = c.input_shape(0);
  auto r = static_cast<std::int64_t>(s.rank());
  auto clamp = [r](std::int64_t v) { return std::clamp<std::int64_t>(v < 0 ? v + r : v, 0, r); };
  std::int64_t b = clamp(c.attr().i("start", 0)), e = clamp(c.attr().i("end", r));
  std::vector<std::int64_t> dims;
  for (std::int64_t d = b; d < e; ++d) dims.push_back(s[static_cast<std::size_t>(d)]);
  c.output(0, Constant::of_ints(Shape{static_cast<std::int64_t>(dims.size())}, dims));
  c.note_folded();
}

void size_op(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({});
  c.output(0, Constant::of_ints(Shape{}, {c.input_shape(0).numel()}));
  c.note_folded();
}

void range_op(ImportContext& c) {
  c.arity(3, 3);
  c.attr().only({});
  c.output(0, range(c.constant(0, "start"), c.constant(1, "limit"), c.constant(2, "delta"), c.label()));
  c.note_folded();
}

/// Expand: folded for a constant; for a runtime tensor, a Mul by ones shaped to supply only
/// the broadcast dimensions (the smallest weight that gives the expanded shape).
void expand_op(ImportContext& c) {
  c.arity(2, 2);
  c.attr().only({});
  auto dims = c.ints(1, "the shape");
  if (c.is_constant(0)) {
    c.output(0, expand(c.constant(0, "input"), dims, c.label()));
    c.note_folded();
    return;
  }
  Value x = c.value(0);
  Shape xs = c.shape(x), out;
  try {
    out = broadcast(xs, checked_shape(dims, c.label()));
  } catch (ShapeError const& e) {
    throw OnnxImportError(c.label() + ": " + e.what());
  }
  if (out == xs) {
    c.output(0, x);
    return;
  }
  Shape ones = out;
  std::size_t lead = out.rank() - xs.rank();
  for (std::size_t d = lead; d < out.rank(); ++d)
    if (xs[d - lead] == out[d]) ones[d] = 1;
  check_folded_size(ones.numel(), 0, c.label());
  Value w = c.new_weight("ones", Constant::of_floats(ones, std::vector<float>(static_cast<std::size_t>(ones.numel()), 1.f)));
  c.output(0, c.add(Mul{}, {x, w}));
}

}  // namespace

void add_shape_translations(TranslationTable& t) {
  t.emplace("Concat", OpEntry{concat});
  t.emplace("Split", OpEntry{split});
  t.emplace("Slice", OpEntry{slice});
  t.emplace("Reshape", OpEntry{reshape});
  t.emplace("Flatten", OpEntry{flatten});
  t.emplace("Transpose", OpEntry{transpose_op});
  t.emplace("Squeeze", OpEntry{squeeze});
  t.emplace("Unsqueeze", OpEntry{unsqueeze});
  t.emplace("Gather", OpEntry{gather});
  t.emplace("Pad", OpEntry{pad});
  t.emplace("ReduceMean", OpEntry{reduce<ReduceKind::mean>});
  t.emplace("ReduceSum", OpEntry{reduce<ReduceKind::sum>});
  t.emplace("Identity", OpEntry{identity});
  t.emplace("Dropout", OpEntry{dropout});
  t.emplace("Cast", OpEntry{cast_op});
  t.emplace("Constant", OpEntry{constant, true});
  t.emplace("ConstantOfShape", OpEntry{constant_of_shape, true});
  t.emplace("Shape", OpEntry{shape_op, true});
  t.emplace("Size", OpEntry{size_op, true});
  t.emplace("Range", OpEntry{range_op, true});
  t.emplace("Expand", OpEntry{expand_op});
  t.emplace("ReduceProd", OpEntry{reduce_fold_only<FoldReduce::prod>, true});
  t.emplace("ReduceMax", OpEntry{reduce_fold_only<FoldReduce::max>, true});
  t.emplace("ReduceMin", OpEntry{reduce_fold_only<FoldReduce::min>, true});
}

}  // namespace autograph::onnx_detail
