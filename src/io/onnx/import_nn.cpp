// ONNX translations for network operators: convolution, pooling, normalisation, linear
// algebra and resizing (see detail/import_ops.hpp).
#include "autograph/io/onnx/detail/import_ops.hpp"

namespace autograph::onnx_detail {
namespace {

// ---- convolution and pooling ------------------------------------------------------------------

// What Conv and ConvTranspose both read: the weight, its kernel (checked against the
// kernel_shape attribute) and the group count.
struct ConvWeight {
  Shape shape;
  std::vector<std::int64_t> kernel;
  std::int64_t group = 1;
};

ConvWeight read_conv_weight(ImportContext& c, Shape const& xs) {
  ConvWeight w{c.input_shape(1), {}, c.attr().i("group", 1)};
  if (w.shape.rank() != xs.rank())
    throw OnnxImportError(c.label() + ": weight " + w.shape.to_string() + " does not match input " + xs.to_string());
  w.kernel.assign(w.shape.begin() + 2, w.shape.end());
  if (auto ks = c.attr().ints("kernel_shape"); !ks.empty() && ks != w.kernel)
    throw OnnxImportError(c.label() + ": kernel_shape " + dims_string(ks) + " differs from the weight " + w.shape.to_string());
  if (w.group < 1 || w.group > xs[1]) throw OnnxImportError(c.label() + ": group " + std::to_string(w.group) + " is invalid");
  return w;
}

// Adds a (transposed) convolution of `x` (inputs 1 and 2 of the node as weight and bias) and
// sets the node's output. A 1-D one runs as 2-D with a height of 1: x and the weight gain
// that axis and the result loses it again.
void add_convolution(ImportContext& c, AnyOp op, Value x, ConvWeight const& w, std::size_t spatial, std::string const& name_2d) {
  std::vector<Value> in;
  if (spatial == 1) {
    Shape w2{w.shape[0], w.shape[1], 1, w.shape[2]};
    in = {unsqueeze_h(c, x, "x_2d"), c.is_constant(1) ? c.new_weight("weight_2d", with_shape(c.constant(1, "weight"), w2))
                                                      : reshape_to(c, c.value(1), w2, "weight_2d")};
  } else {
    in = {x, c.value(1)};
  }
  if (c.has_input(2)) in.push_back(c.value(2));
  Value y = c.add(op, in, spatial == 1 ? name_2d : "");
  if (spatial == 1) {
    Shape ys = c.shape(y);
    y = c.add(Reshape{{ys[0], ys[1], ys[3]}}, {y});
  }
  c.output(0, y);
}

void conv(ImportContext& c) {
  c.arity(2, 3);
  c.attr().only({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  Value x = c.value(0);
  Shape xs = c.shape(x);
  std::size_t k = spatial_rank(c, xs, "convolution");
  ConvWeight w = read_conv_weight(c, xs);
  Window win = read_window(c, std::span(xs.dims()).subspan(2), w.kernel, true);
  add_convolution(c, Conv2D{pair_of(win.stride, 1), pads_of(win.pads), pair_of(win.dilation, 1), w.group, Activation::none}, x, w, k, "conv_2d");
}

void conv_transpose(ImportContext& c) {
  c.arity(2, 3);
  c.attr().only({"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"});
  Value x = c.value(0);
  Shape xs = c.shape(x);
  std::size_t k = spatial_rank(c, xs, "transposed convolution");
  ConvWeight w = read_conv_weight(c, xs);
  auto stride = c.checked_ints("strides", std::vector<std::int64_t>(k, 1), 1);
  auto dilation = c.checked_ints("dilations", std::vector<std::int64_t>(k, 1), 1);
  auto pads = c.checked_ints("pads", std::vector<std::int64_t>(2 * k, 0), 0);
  auto out_pad = c.checked_ints("output_padding", std::vector<std::int64_t>(k, 0), 0);
  auto out_shape = c.checked_ints("output_shape", {}, 1);
  if (stride.size() != k || dilation.size() != k || pads.size() != 2 * k || out_pad.size() != k)
    throw OnnxImportError(c.label() + ": strides, dilations, pads or output_padding do not match " + std::to_string(k) + " spatial dimensions");
  std::string auto_pad = c.attr().s("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    throw OnnxImportError(c.label() + ": unknown auto_pad '" + auto_pad + "'");
  if (auto_pad == "VALID") std::ranges::fill(pads, 0);
  if (!out_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    // The padding that gives the requested output size: total = full size - wanted size,
    // split with the odd cell at the beginning unless SAME_UPPER (the ONNX spec). A wanted
    // size beyond the full size grows the end, which only the bias reaches.
    if (out_shape.size() == k + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
    if (!out_shape.empty() && out_shape.size() != k)
      throw OnnxImportError(c.label() + ": output_shape " + dims_string(out_shape) + " does not match " + std::to_string(k) + " spatial dimensions");
    for (std::size_t i = 0; i < k; ++i) {
      std::int64_t in = xs[2 + i];
      std::int64_t want = out_shape.empty() ? in * stride[i] : out_shape[i];
      std::int64_t full = stride[i] * (in - 1) + out_pad[i] + dilation[i] * (w.kernel[i] - 1) + 1;
      std::int64_t total = full - want;
      if (total < 0) {
        out_pad[i] += -total;
        total = 0;
      }
      std::int64_t small = total / 2, large = total - small;
      pads[i] = auto_pad == "SAME_UPPER" ? small : large;
      pads[k + i] = auto_pad == "SAME_UPPER" ? large : small;
    }
  }
  add_convolution(c, ConvTranspose2D{pair_of(stride, 1), pads_of(pads), pair_of(dilation, 1), pair_of(out_pad, 0), w.group}, x, w, k,
                  "conv_transpose_2d");
}

template <PoolKind K>
void pool(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides", "storage_order"});
  Value x = c.value(0);
  Shape xs = c.shape(x);
  std::size_t k = spatial_rank(c, xs, "pooling");
  auto kernel = c.checked_ints("kernel_shape", {}, 1);
  if (kernel.size() != k) throw OnnxImportError(c.label() + ": kernel_shape " + dims_string(kernel) + " does not match the input " + xs.to_string());
  Window win = read_window(c, std::span(xs.dims()).subspan(2), kernel, false);
  Pool2D op{K, pair_of(win.kernel, 1), pair_of(win.stride, 1), pads_of(win.pads), false, c.attr().i("count_include_pad", 0) != 0,
            c.attr().i("ceil_mode", 0) != 0};
  Value y = c.add(op, {k == 1 ? unsqueeze_h(c, x, "x_2d") : x}, k == 1 ? "pool_2d" : "");
  if (k == 1) {
    Shape ys = c.shape(y);
    y = c.add(Reshape{{ys[0], ys[1], ys[3]}}, {y});
  }
  c.output(0, y);
  c.unavailable_from(1, "(the argmax indices) is not supported");
}

template <PoolKind K>
void global_pool(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({});
  Value x = c.value(0);
  Shape xs = c.shape(x);
  std::size_t k = spatial_rank(c, xs, "global pooling");
  Pool2D op{.kind = K, .global = true};
  Value y = c.add(op, {k == 1 ? unsqueeze_h(c, x, "x_2d") : x}, k == 1 ? "pool_2d" : "");
  if (k == 1) y = reshape_to(c, y, Shape{xs[0], xs[1], 1});
  c.output(0, y);
}

// ---- normalisation ----------------------------------------------------------------------------

void batch_norm(ImportContext& c) {
  c.arity(5, 5);
  c.attr().only({"epsilon", "momentum", "spatial", "training_mode", "is_test", "consumed_inputs"});
  if (c.attr().i("training_mode", 0) != 0) throw OnnxUnsupportedError(c.label() + ": training_mode=1 is not supported (inference only)");
  if (c.attr().i("spatial", 1) != 1) throw OnnxUnsupportedError(c.label() + ": spatial=0 is not supported");
  float eps = c.attr().f("epsilon", 1e-5f);
  std::vector<Value> in;
  for (int i = 0; i < 5; ++i) in.push_back(c.value(i));
  c.output(0, c.add(BatchNorm{eps}, in));
  c.unavailable_from(1, "(training statistics) is not supported");
}

void layer_norm(ImportContext& c) {
  c.arity(2, 3);
  c.attr().only({"axis", "epsilon", "stash_type"});
  Value x = c.value(0);
  Shape xs = c.shape(x);
  std::int64_t axis = c.attr().i("axis", -1);
  std::size_t a = axis_of(axis, xs.rank(), c.label());
  Shape norm(xs.dims().subspan(a));
  // Scale and bias may be any shape that broadcasts to the normalised axes; constants are
  // expanded to exactly that shape, which LayerNorm takes.
  auto param = [&](int i, char const* what, float dflt) -> Value {
    if (!c.has_input(i)) return c.new_weight(what, Constant::of_floats(norm, std::vector<float>(static_cast<std::size_t>(norm.numel()), dflt)));
    Shape s = c.input_shape(i);
    if (s == norm) return c.value(i);
    if (!c.is_constant(i)) throw OnnxUnsupportedError(c.label() + ": a " + what + " of shape " + s.to_string() + " computed at run time is not supported");
    return c.new_weight(what, expand(c.constant(i, what), std::vector<std::int64_t>(norm.begin(), norm.end()), c.label()));
  };
  Value gamma = param(1, "scale", 1.f), beta = param(2, "bias", 0.f);
  float eps = c.attr().f("epsilon", 1e-5f);
  c.output(0, c.add(LayerNorm{axis, eps}, {x, gamma, beta}));
  if (c.node().output_size() > 1) {
    // The optional Mean and InvStdDev outputs, over the normalised axes (kept as size 1),
    // built from built-in ops; nodes nobody reads are removed after import.
    std::vector<std::int64_t> axes;
    for (std::size_t d = a; d < xs.rank(); ++d) axes.push_back(static_cast<std::int64_t>(d));
    Value mean = c.add(Reduce{ReduceKind::mean, axes, true}, {x}, "mean");
    Value centred = c.add(Sub{}, {x, mean}, "centred");
    Value var = c.add(Reduce{ReduceKind::mean, axes, true}, {c.add(Mul{}, {centred, centred}, "squares")}, "variance");
    Value inv_std = c.add(Reciprocal{}, {c.add(Sqrt{}, {c.add(Scale{1.f, eps}, {var}, "variance_eps")}, "std")}, "inv_std");
    c.output(1, mean);
    c.output(2, inv_std);
  }
}

// ---- linear algebra ---------------------------------------------------------------------------

void matmul(ImportContext& c) {
  c.arity(2, 2);
  c.attr().only({});
  Value a = c.value(0), b = c.value(1);
  Shape as = c.shape(a), bs = c.shape(b);
  if (as.rank() == 0 || bs.rank() == 0) throw OnnxImportError(c.label() + ": MatMul of a scalar");
  // 1-D operands are promoted to matrices and the added axis removed again (NumPy matmul).
  bool vec_a = as.rank() == 1, vec_b = bs.rank() == 1;
  if (vec_a) a = c.add(Reshape{{1, as[0]}}, {a}, "a_2d");
  if (vec_b) b = c.add(Reshape{{bs[0], 1}}, {b}, "b_2d");
  Value y = c.add(MatMul{}, {a, b}, vec_a || vec_b ? "matmul" : "");
  if (vec_a || vec_b) {
    Shape ys = c.shape(y);
    std::vector<std::int64_t> dims(ys.begin(), ys.end());
    if (vec_b) dims.pop_back();
    if (vec_a) dims.erase(dims.end() - 1 - (vec_b ? 0 : 1));
    y = c.add(Reshape{dims}, {y});
  }
  c.output(0, y);
}

/// Gemm: Y = alpha op(A) op(B) + beta C as Transpose, MatMul, Scale and Add. Transposes and
/// scalings of constant operands are folded into the constants.
void gemm(ImportContext& c) {
  c.arity(2, 3);
  c.attr().only({"alpha", "beta", "transA", "transB", "broadcast"});
  float alpha = c.attr().f("alpha", 1.f), beta = c.attr().f("beta", 1.f);
  bool ta = c.attr().i("transA", 0) != 0, tb = c.attr().i("transB", 0) != 0;
  auto operand = [&](int i, bool trans, char const* what) -> Value {
    Shape s = c.input_shape(i);
    if (s.rank() != 2) throw OnnxImportError(c.label() + ": " + what + " must be 2-D, got " + s.to_string());
    if (!trans) return c.value(i);
    if (c.is_constant(i)) return c.new_weight(std::string(what) + "_t", transpose(c.constant(i, what), {1, 0}, c.label()));
    return c.add(Transpose{{1, 0}}, {c.value(i)}, std::string(what) + "_t");
  };
  Value a = operand(0, ta, "A"), b = operand(1, tb, "B");
  bool more = alpha != 1.f || c.has_input(2);
  Value y = c.add(MatMul{}, {a, b}, more ? "matmul" : "");
  Shape ys = c.shape(y);
  if (alpha != 1.f) y = c.add(Scale{alpha, 0.f}, {y}, c.has_input(2) ? "alpha" : "");
  if (c.has_input(2) && beta != 0.f) {
    Value bias;
    if (c.is_constant(2)) {
      Constant const& k = c.constant(2, "C");
      bias = beta == 1.f ? c.value(2) : c.new_weight("C_beta", onnx_detail::binary(FoldBinary::mul, k, Constant::of_floats(Shape{}, {beta}), c.label()));
    } else {
      bias = beta == 1.f ? c.value(2) : c.add(Scale{beta, 0.f}, {c.value(2)}, "beta");
    }
    y = c.add(Add{}, {y, bias});
    if (c.shape(y) != ys) throw OnnxImportError(c.label() + ": C of shape " + c.input_shape(2).to_string() + " does not broadcast to " + ys.to_string());
  }
  c.output(0, y);  // with beta = 0, C is ignored
}

void softmax(ImportContext& c) {
  c.arity(1, 1);
  c.attr().only({"axis"});
  Value x = c.value(0);
  Shape xs = c.shape(x);
  std::int64_t axis = c.attr().i("axis", c.opset < 13 ? 1 : -1);
  std::size_t a = axis_of(axis, std::max<std::size_t>(xs.rank(), 1), c.label());
  if (c.opset >= 13 || a + 1 == xs.rank()) {
    c.output(0, c.add(Softmax{axis}, {x}));
    return;
  }
  // Before opset 13, Softmax flattens x to [prod(dims < axis), prod(dims >= axis)] and
  // normalises each row.
  std::int64_t rows = 1;
  for (std::size_t d = 0; d < a; ++d) rows *= xs[d];
  std::int64_t cols = rows == 0 ? 0 : xs.numel() / rows;
  Value flat = c.add(Reshape{{rows, cols}}, {x}, "flat");
  Value y = c.add(Softmax{-1}, {flat}, "softmax");
  c.output(0, reshape_to(c, y, xs));
}

// ---- resizing ---------------------------------------------------------------------------------

void resize_common(ImportContext& c, Shape const& xs, std::vector<double> scales, std::vector<std::int64_t> sizes, Resize op) {
  std::size_t r = xs.rank();
  if (!scales.empty() && scales.size() != r) throw OnnxImportError(c.label() + ": " + std::to_string(scales.size()) + " scales for " + xs.to_string());
  if (!sizes.empty() && sizes.size() != r) throw OnnxImportError(c.label() + ": " + std::to_string(sizes.size()) + " sizes for " + xs.to_string());
  if (scales.empty() == sizes.empty()) throw OnnxImportError(c.label() + ": exactly one of scales and sizes must be given");
  if (!scales.empty()) {
    for (std::size_t d = 0; d < r; ++d) {
      if (!(scales[d] > 0) || scales[d] > 1e6) throw OnnxImportError(c.label() + ": scale " + std::to_string(scales[d]) + " is invalid");
      double extent = op.coordinate == ResizeCoordinate::tf_crop_and_resize ? op.roi[r + d] - op.roi[d] : 1.0;
      double out = std::floor(static_cast<double>(xs[d]) * extent * scales[d]);
      if (!(out >= 1 && out < static_cast<double>(max_elements))) throw OnnxImportError(c.label() + ": scale " + std::to_string(scales[d]) + " gives an empty or huge output");
      sizes.push_back(static_cast<std::int64_t>(out));
    }
    op.scales = std::move(scales);
  }
  op.sizes = std::move(sizes);
  for (auto s : op.sizes)
    if (s < 1 || s > max_elements) throw OnnxImportError(c.label() + ": output size " + std::to_string(s) + " is invalid");
  c.output(0, c.add(std::move(op), {c.value(0)}));
}

ResizeMode resize_mode(ImportContext& c, std::string const& m) {
  if (m == "nearest") return ResizeMode::nearest;
  if (m == "linear" || m == "bilinear") return ResizeMode::linear;
  if (m == "cubic") return ResizeMode::cubic;
  throw OnnxImportError(c.label() + ": unknown mode '" + m + "'");
}

/// Resize before opset 11 and Upsample: asymmetric coordinates, nearest rounds down.
void resize_legacy(ImportContext& c, std::vector<double> scales) {
  Shape xs = c.input_shape(0);
  Resize op;
  op.mode = resize_mode(c, c.attr().s("mode", "nearest"));
  if (op.mode == ResizeMode::cubic) throw OnnxUnsupportedError(c.label() + ": cubic mode before opset 11 is not supported");
  op.coordinate = ResizeCoordinate::asymmetric;
  op.nearest = ResizeNearest::floor;
  resize_common(c, xs, std::move(scales), {}, std::move(op));
}

std::vector<double> doubles(Constant const& k) { return k.as_doubles(); }

void upsample(ImportContext& c) {
  c.attr().only({"mode", "scales", "height_scale", "width_scale"});
  if (c.opset >= 9) {
    c.arity(2, 2);
    resize_legacy(c, doubles(c.constant(1, "scales")));
  } else {
    c.arity(1, 1);
    auto s = c.attr().floats("scales");
    resize_legacy(c, std::vector<double>(s.begin(), s.end()));
  }
}

void resize(ImportContext& c) {
  if (c.opset < 11) {
    c.arity(2, 2);
    c.attr().only({"mode"});
    resize_legacy(c, doubles(c.constant(1, "scales")));
    return;
  }
  c.arity(1, 4);
  c.attr().only({"antialias", "axes", "coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside", "extrapolation_value",
                 "keep_aspect_ratio_policy", "mode", "nearest_mode"});
  if (c.attr().i("antialias", 0) != 0) throw OnnxUnsupportedError(c.label() + ": antialias=1 is not supported");
  if (c.attr().s("keep_aspect_ratio_policy", "stretch") != "stretch")
    throw OnnxUnsupportedError(c.label() + ": keep_aspect_ratio_policy other than 'stretch' is not supported");
  Shape xs = c.input_shape(0);
  std::size_t r = xs.rank();
  Resize op;
  op.mode = resize_mode(c, c.attr().s("mode", "nearest"));
  std::string ct = c.attr().s("coordinate_transformation_mode", "half_pixel");
  static constexpr std::pair<std::string_view, ResizeCoordinate> coords[] = {
      {"half_pixel", ResizeCoordinate::half_pixel},       {"pytorch_half_pixel", ResizeCoordinate::pytorch_half_pixel},
      {"align_corners", ResizeCoordinate::align_corners}, {"asymmetric", ResizeCoordinate::asymmetric},
      {"tf_half_pixel_for_nn", ResizeCoordinate::tf_half_pixel_for_nn}, {"tf_crop_and_resize", ResizeCoordinate::tf_crop_and_resize}};
  auto ci = std::ranges::find(coords, std::string_view(ct), &std::pair<std::string_view, ResizeCoordinate>::first);
  if (ci == std::end(coords)) throw OnnxUnsupportedError(c.label() + ": coordinate_transformation_mode '" + ct + "' is not supported");
  op.coordinate = ci->second;
  std::string nm = c.attr().s("nearest_mode", "round_prefer_floor");
  static constexpr std::pair<std::string_view, ResizeNearest> nearest[] = {{"round_prefer_floor", ResizeNearest::round_prefer_floor},
                                                                            {"round_prefer_ceil", ResizeNearest::round_prefer_ceil},
                                                                            {"floor", ResizeNearest::floor},
                                                                            {"ceil", ResizeNearest::ceil}};
  auto ni = std::ranges::find(nearest, std::string_view(nm), &std::pair<std::string_view, ResizeNearest>::first);
  if (ni == std::end(nearest)) throw OnnxImportError(c.label() + ": unknown nearest_mode '" + nm + "'");
  op.nearest = ni->second;
  op.cubic_coeff_a = c.attr().f("cubic_coeff_a", -0.75f);
  op.exclude_outside = c.attr().i("exclude_outside", 0) != 0;
  op.extrapolation_value = c.attr().f("extrapolation_value", 0.f);

  // opset 18: scales/sizes/roi may cover only the listed axes; the rest keep their size.
  auto axes = c.attr().ints("axes");
  std::vector<std::size_t> ax;
  for (auto a : axes) ax.push_back(axis_of(a, r, c.label()));
  if (ax.empty())
    for (std::size_t d = 0; d < r; ++d) ax.push_back(d);
  auto spread = [&]<class T>(std::vector<T> v, T fill, char const* what) {
    if (v.empty() || ax.size() == r) return v;
    if (v.size() != ax.size()) throw OnnxImportError(c.label() + ": " + what + " does not match axes");
    std::vector<T> full(r, fill);
    for (std::size_t i = 0; i < ax.size(); ++i) full[ax[i]] = v[i];
    return full;
  };
  if (op.coordinate == ResizeCoordinate::tf_crop_and_resize) {
    if (!c.has_input(1)) throw OnnxImportError(c.label() + ": tf_crop_and_resize needs a roi");
    auto roi = doubles(c.constant(1, "roi"));
    if (ax.size() != r) {
      if (roi.size() != 2 * ax.size()) throw OnnxImportError(c.label() + ": roi does not match axes");
      std::vector<double> full(2 * r);
      for (std::size_t d = 0; d < r; ++d) full[r + d] = 1;
      for (std::size_t i = 0; i < ax.size(); ++i) {
        full[ax[i]] = roi[i];
        full[r + ax[i]] = roi[ax.size() + i];
      }
      roi = full;
    }
    if (roi.size() != 2 * r) throw OnnxImportError(c.label() + ": roi needs " + std::to_string(2 * r) + " values");
    for (double v : roi)
      if (!std::isfinite(v) || std::fabs(v) > 1e6) throw OnnxImportError(c.label() + ": roi value " + std::to_string(v) + " is invalid");
    op.roi = roi;
  }
  std::vector<double> scales;
  std::vector<std::int64_t> sizes;
  if (c.has_input(2)) scales = spread(doubles(c.constant(2, "scales")), 1.0, "scales");
  if (c.has_input(3)) sizes = spread(c.ints(3, "sizes"), std::int64_t{0}, "sizes");
  if (!sizes.empty() && ax.size() != r)
    for (std::size_t d = 0; d < r; ++d)
      if (std::ranges::find(ax, d) == ax.end()) sizes[d] = xs[d];
  resize_common(c, xs, std::move(scales), std::move(sizes), std::move(op));
}

}  // namespace

void add_network_translations(TranslationTable& t) {
  t.emplace("Conv", OpEntry{conv});
  t.emplace("ConvTranspose", OpEntry{conv_transpose});
  t.emplace("MaxPool", OpEntry{pool<PoolKind::max>});
  t.emplace("AveragePool", OpEntry{pool<PoolKind::avg>});
  t.emplace("GlobalAveragePool", OpEntry{global_pool<PoolKind::avg>});
  t.emplace("GlobalMaxPool", OpEntry{global_pool<PoolKind::max>});
  t.emplace("BatchNormalization", OpEntry{batch_norm});
  t.emplace("LayerNormalization", OpEntry{layer_norm});
  t.emplace("MatMul", OpEntry{matmul});
  t.emplace("Gemm", OpEntry{gemm});
  t.emplace("Softmax", OpEntry{softmax});
  t.emplace("Resize", OpEntry{resize});
  t.emplace("Upsample", OpEntry{upsample});
}

}  // namespace autograph::onnx_detail
