#pragma once
// The importer's constant evaluator: once input shapes are fixed, the shape arithmetic that
// exporters emit (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, Range, ConstantOfShape,
// Cast, Where, ...) has only constant inputs and is computed here, on int64 or float data,
// so the graph receives plain static shapes. Each function implements the ONNX operator of
// the same name on Constants; a malformed request throws OnnxImportError.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "autograph/io/onnx/detail/proto.hpp"
#include "autograph/runtime/cpu/strided.hpp"

namespace autograph::onnx_detail {

/// Throws unless a folded result of n elements is reasonable: not larger than max_folded_elements
/// unless its inputs were already that large (a reshape of a big weight).
inline void check_folded_size(std::int64_t n, std::int64_t inputs, std::string const& what) {
  if (n > std::max(max_folded_elements, inputs))
    throw OnnxImportError(what + ": a folded constant of " + std::to_string(n) + " elements is too large");
}

inline Shape checked_shape(std::span<std::int64_t const> dims, std::string const& what) {
  if (dims.size() > Shape::max_rank) throw OnnxUnsupportedError(what + ": " + std::to_string(dims.size()) + " dimensions; at most 8 are supported");
  if (!checked_numel(dims)) throw OnnxImportError(what + ": invalid shape " + dims_string(dims));
  return Shape(dims);
}

/// Applies f to the data vector of c (float or int64) and a fresh output vector of the same
/// element type with n elements; returns the output as a Constant of c's dtype and `shape`.
template <class F>
Constant map_data(Constant const& c, Shape shape, F&& f) {
  std::size_t n = static_cast<std::size_t>(shape.numel());
  if (c.is_float()) {
    std::vector<float> out(n);
    f(std::span<float const>(*c.floats), std::span<float>(out));
    return Constant::of_floats(shape, std::move(out), c.dtype);
  }
  std::vector<std::int64_t> out(n);
  f(std::span<std::int64_t const>(c.ints), std::span<std::int64_t>(out));
  return Constant::of_ints(shape, std::move(out), c.dtype);
}

/// Same data, new shape (Reshape, Flatten, Squeeze, Unsqueeze).
inline Constant with_shape(Constant c, Shape s) {
  c.shape = s;
  return c;
}

inline Constant cast(Constant const& c, int to) {
  if (!is_float_type(to) && !is_int_type(to)) throw OnnxUnsupportedError("Cast to " + dtype_name(to) + " is not supported");
  Constant r;
  r.dtype = to;
  r.shape = c.shape;
  std::size_t n = static_cast<std::size_t>(c.numel());
  if (is_float_type(to)) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = to_float(c.number(i));
    r.floats = std::make_shared<std::vector<float> const>(std::move(v));
  } else {
    r.ints.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (c.is_float()) {
        double x = c.number(i);
        // float -> int truncates; NaN and out-of-range values have no defined result
        if (!std::isfinite(x) || std::fabs(x) >= 9.2e18) throw OnnxImportError("Cast of " + std::to_string(x) + " to " + dtype_name(to) + " overflows");
        r.ints[i] = to == ::onnx::TensorProto::BOOL ? (x != 0) : static_cast<std::int64_t>(x);
      } else {
        std::int64_t x = c.ints[i];
        switch (to) {
          case ::onnx::TensorProto::BOOL: x = x != 0; break;
          case ::onnx::TensorProto::INT8: x = static_cast<std::int8_t>(x); break;
          case ::onnx::TensorProto::UINT8: x = static_cast<std::uint8_t>(x); break;
          case ::onnx::TensorProto::INT16: x = static_cast<std::int16_t>(x); break;
          case ::onnx::TensorProto::UINT16: x = static_cast<std::uint16_t>(x); break;
          case ::onnx::TensorProto::INT32: x = static_cast<std::int32_t>(x); break;
          case ::onnx::TensorProto::UINT32: x = static_cast<std::uint32_t>(x); break;
          default: break;
        }
        r.ints[i] = x;
      }
    }
  }
  return r;
}

enum class FoldBinary { add, sub, mul, div, pow, max, min, mod, equal, less, greater, less_equal, greater_equal, logical_and, logical_or };

/// Elementwise binary op with NumPy broadcasting. Comparisons give BOOL; arithmetic on two
/// integer tensors stays integer (division truncates, as ONNX's C++ runtimes do); otherwise float.
inline Constant binary(FoldBinary k, Constant const& a, Constant const& b, std::string const& what) {
  Shape out;
  try {
    out = broadcast(a.shape, b.shape);
  } catch (ShapeError const& e) {
    throw OnnxImportError(what + ": " + e.what());
  }
  bool compare = k >= FoldBinary::equal;
  bool integer = !a.is_float() && !b.is_float();
  auto n = static_cast<std::size_t>(out.numel());
  cpu::Strides sa = cpu::broadcast_strides(a.shape, out), sb = cpu::broadcast_strides(b.shape, out), so = strides_of(out);
  auto walk = [&](auto&& f) {
    cpu::for_each_index<3>(out, {so, sa, sb}, [&](auto const& o) { f(static_cast<std::size_t>(o[0]), static_cast<std::size_t>(o[1]), static_cast<std::size_t>(o[2])); });
  };
  if (compare || integer) {
    std::vector<std::int64_t> r(n);
    walk([&](std::size_t i, std::size_t ia, std::size_t ib) {
      if (integer) {
        std::int64_t x = a.ints[ia], y = b.ints[ib];
        auto wrap = [](auto v) { return static_cast<std::int64_t>(static_cast<std::uint64_t>(v)); };
        switch (k) {
          case FoldBinary::add: r[i] = wrap(static_cast<std::uint64_t>(x) + static_cast<std::uint64_t>(y)); break;
          case FoldBinary::sub: r[i] = wrap(static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y)); break;
          case FoldBinary::mul: r[i] = wrap(static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y)); break;
          case FoldBinary::div:
          case FoldBinary::mod:
            if (y == 0 || (y == -1 && x == std::numeric_limits<std::int64_t>::min())) throw OnnxImportError(what + ": integer division by zero or overflow");
            r[i] = k == FoldBinary::div ? x / y : x % y;
            break;
          case FoldBinary::pow: {
            double p = std::pow(static_cast<double>(x), static_cast<double>(y));
            if (!std::isfinite(p) || std::fabs(p) >= 9.2e18) throw OnnxImportError(what + ": integer power overflows");
            r[i] = static_cast<std::int64_t>(p);
            break;
          }
          case FoldBinary::max: r[i] = std::max(x, y); break;
          case FoldBinary::min: r[i] = std::min(x, y); break;
          case FoldBinary::equal: r[i] = x == y; break;
          case FoldBinary::less: r[i] = x < y; break;
          case FoldBinary::greater: r[i] = x > y; break;
          case FoldBinary::less_equal: r[i] = x <= y; break;
          case FoldBinary::greater_equal: r[i] = x >= y; break;
          case FoldBinary::logical_and: r[i] = x && y; break;
          case FoldBinary::logical_or: r[i] = x || y; break;
        }
      } else {
        double x = a.number(ia), y = b.number(ib);
        switch (k) {
          case FoldBinary::equal: r[i] = x == y; break;
          case FoldBinary::less: r[i] = x < y; break;
          case FoldBinary::greater: r[i] = x > y; break;
          case FoldBinary::less_equal: r[i] = x <= y; break;
          case FoldBinary::greater_equal: r[i] = x >= y; break;
          case FoldBinary::logical_and: r[i] = x != 0 && y != 0; break;
          default: r[i] = x != 0 || y != 0; break;
        }
      }
    });
    return Constant::of_ints(out, std::move(r), compare ? ::onnx::TensorProto::BOOL : a.dtype);
  }
  std::vector<float> r(n);
  walk([&](std::size_t i, std::size_t ia, std::size_t ib) {
    float x = to_float(a.number(ia)), y = to_float(b.number(ib));
    switch (k) {
      case FoldBinary::add: r[i] = x + y; break;
      case FoldBinary::sub: r[i] = x - y; break;
      case FoldBinary::mul: r[i] = x * y; break;
      case FoldBinary::div: r[i] = x / y; break;
      case FoldBinary::pow: r[i] = std::pow(x, y); break;
      case FoldBinary::max: r[i] = std::max(x, y); break;
      case FoldBinary::min: r[i] = std::min(x, y); break;
      case FoldBinary::mod: r[i] = std::fmod(x, y); break;
      default: break;
    }
  });
  return Constant::of_floats(out, std::move(r), a.is_float() ? a.dtype : b.dtype);
}

enum class FoldUnary { neg, abs, sqrt, floor, ceil, round, logical_not, reciprocal, exp, log, relu, sigmoid, tanh, erf, identity };

inline Constant unary(FoldUnary k, Constant const& c, std::string const& what) {
  if (!c.is_float()) {
    if (k == FoldUnary::floor || k == FoldUnary::ceil || k == FoldUnary::round || k == FoldUnary::identity) return c;
    return map_data(c, c.shape, [&](auto in, auto out) {
      for (std::size_t i = 0; i < in.size(); ++i) {
        std::int64_t x = static_cast<std::int64_t>(in[i]);
        switch (k) {
          case FoldUnary::neg: out[i] = static_cast<std::int64_t>(0ull - static_cast<std::uint64_t>(x)); break;
          case FoldUnary::abs: out[i] = x < 0 ? static_cast<std::int64_t>(0ull - static_cast<std::uint64_t>(x)) : x; break;
          case FoldUnary::logical_not: out[i] = x == 0; break;
          case FoldUnary::relu: out[i] = std::max<std::int64_t>(x, 0); break;
          default: throw OnnxUnsupportedError(what + ": this operator on integer constants is not supported");
        }
      }
    });
  }
  if (k == FoldUnary::logical_not) throw OnnxImportError(what + ": Not of a float tensor");
  return map_data(c, c.shape, [&](auto in, auto out) {
    for (std::size_t i = 0; i < in.size(); ++i) {
      float x = static_cast<float>(in[i]);
      float y = x;
      switch (k) {
        case FoldUnary::neg: y = -x; break;
        case FoldUnary::abs: y = std::fabs(x); break;
        case FoldUnary::sqrt: y = std::sqrt(x); break;
        case FoldUnary::floor: y = std::floor(x); break;
        case FoldUnary::ceil: y = std::ceil(x); break;
        case FoldUnary::round: y = std::nearbyint(x); break;  // ONNX Round: halves to even
        case FoldUnary::reciprocal: y = 1.f / x; break;
        case FoldUnary::exp: y = std::exp(x); break;
        case FoldUnary::log: y = std::log(x); break;
        case FoldUnary::relu: y = x > 0 ? x : 0.f; break;
        case FoldUnary::sigmoid: y = 1.f / (1.f + std::exp(-x)); break;
        case FoldUnary::tanh: y = std::tanh(x); break;
        case FoldUnary::erf: y = std::erf(x); break;
        default: break;
      }
      out[i] = static_cast<std::remove_cvref_t<decltype(out[i])>>(y);
    }
  });
}

/// Where(cond, a, b) with broadcasting; a and b must both be float or both integer.
inline Constant where(Constant const& cond, Constant const& a, Constant const& b, std::string const& what) {
  if (a.is_float() != b.is_float()) throw OnnxImportError(what + ": Where of " + a.describe() + " and " + b.describe());
  Shape out;
  try {
    out = broadcast(broadcast(cond.shape, a.shape), b.shape);
  } catch (ShapeError const& e) {
    throw OnnxImportError(what + ": " + e.what());
  }
  cpu::Strides sc = cpu::broadcast_strides(cond.shape, out), sa = cpu::broadcast_strides(a.shape, out),
               sb = cpu::broadcast_strides(b.shape, out), so = strides_of(out);
  std::size_t n = static_cast<std::size_t>(out.numel());
  Constant r;
  r.dtype = a.dtype;
  r.shape = out;
  std::vector<float> fv(a.is_float() ? n : 0);
  if (!a.is_float()) r.ints.resize(n);
  cpu::for_each_index<4>(out, {so, sc, sa, sb}, [&](auto const& o) {
    auto i = static_cast<std::size_t>(o[0]);
    bool take_a = cond.number(static_cast<std::size_t>(o[1])) != 0;
    auto src = static_cast<std::size_t>(take_a ? o[2] : o[3]);
    Constant const& from = take_a ? a : b;
    if (a.is_float()) fv[i] = (*from.floats)[src];
    else r.ints[i] = from.ints[src];
  });
  if (a.is_float()) r.floats = std::make_shared<std::vector<float> const>(std::move(fv));
  return r;
}

/// Copies c into a tensor of `out` shape reading with `src` strides from `origin`.
inline Constant strided_copy(Constant const& c, Shape out, cpu::Strides const& src, std::int64_t origin) {
  return map_data(c, out, [&](auto in, auto res) {
    cpu::for_each_index<2>(out, {src, strides_of(out)}, [&](auto const& o) {
      res[static_cast<std::size_t>(o[1])] = in[static_cast<std::size_t>(origin + o[0])];
    });
  });
}

inline Constant transpose(Constant const& c, std::vector<std::int64_t> perm, std::string const& what) {
  std::size_t r = c.shape.rank();
  if (perm.empty())
    for (std::size_t i = 0; i < r; ++i) perm.push_back(static_cast<std::int64_t>(r - 1 - i));
  if (perm.size() != r) throw OnnxImportError(what + ": perm " + dims_string(perm) + " for a tensor of rank " + std::to_string(r));
  std::vector<bool> seen(r);
  Shape out = c.shape;
  cpu::Strides st = strides_of(c.shape), src{};
  for (std::size_t i = 0; i < r; ++i) {
    auto p = perm[i];
    if (p < 0 || p >= static_cast<std::int64_t>(r) || seen[static_cast<std::size_t>(p)]) throw OnnxImportError(what + ": perm " + dims_string(perm) + " is not a permutation");
    seen[static_cast<std::size_t>(p)] = true;
    out[i] = c.shape[static_cast<std::size_t>(p)];
    src[i] = st[static_cast<std::size_t>(p)];
  }
  return strided_copy(c, out, src, 0);
}

inline std::size_t axis_of(std::int64_t axis, std::size_t rank, std::string const& what) {
  auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) throw OnnxImportError(what + ": axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

inline Constant concat(std::vector<Constant> const& xs, std::int64_t axis, std::string const& what) {
  if (xs.empty()) throw OnnxImportError(what + ": Concat of nothing");
  std::size_t a = axis_of(axis, xs[0].shape.rank(), what);
  Shape out = xs[0].shape;
  bool any_float = false;
  for (auto const& x : xs) any_float = any_float || x.is_float();
  for (std::size_t i = 1; i < xs.size(); ++i) {
    bool ok = xs[i].shape.rank() == out.rank();
    for (std::size_t d = 0; ok && d < out.rank(); ++d) ok = d == a || xs[i].shape[d] == out[d];
    if (!ok) throw OnnxImportError(what + ": cannot concatenate " + xs[i].shape.to_string() + " with " + xs[0].shape.to_string());
    out[a] += xs[i].shape[a];
  }
  Constant r;
  r.dtype = any_float ? (xs[0].is_float() ? xs[0].dtype : static_cast<int>(::onnx::TensorProto::FLOAT)) : xs[0].dtype;
  r.shape = out;
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < a; ++d) outer *= out[d];
  for (std::size_t d = a + 1; d < out.rank(); ++d) inner *= out[d];
  std::vector<float> fv;
  if (any_float) fv.reserve(static_cast<std::size_t>(out.numel()));
  else r.ints.reserve(static_cast<std::size_t>(out.numel()));
  for (std::int64_t o = 0; o < outer; ++o)
    for (auto const& x : xs) {
      std::int64_t block = x.shape[a] * inner;
      for (std::int64_t i = 0; i < block; ++i) {
        auto at = static_cast<std::size_t>(o * block + i);
        if (any_float) fv.push_back(to_float(x.number(at)));
        else r.ints.push_back(x.ints[at]);
      }
    }
  if (any_float) r.floats = std::make_shared<std::vector<float> const>(std::move(fv));
  return r;
}

/// Gather along `axis` with integer indices (negative ones count from the back).
inline Constant gather(Constant const& data, Constant const& indices, std::int64_t axis, std::string const& what) {
  if (indices.is_float()) throw OnnxImportError(what + ": Gather indices must be integers");
  std::size_t a = axis_of(axis, data.shape.rank(), what);
  std::int64_t n = data.shape[a], outer = 1, inner = 1;
  for (std::size_t d = 0; d < a; ++d) outer *= data.shape[d];
  for (std::size_t d = a + 1; d < data.shape.rank(); ++d) inner *= data.shape[d];
  std::vector<std::int64_t> dims(data.shape.begin(), data.shape.begin() + static_cast<std::ptrdiff_t>(a));
  dims.insert(dims.end(), indices.shape.begin(), indices.shape.end());
  dims.insert(dims.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(a) + 1, data.shape.end());
  Shape out = checked_shape(dims, what);
  check_folded_size(out.numel(), data.numel() + indices.numel(), what);
  std::vector<std::int64_t> idx = indices.ints;
  for (auto& i : idx) {
    if (i < -n || i >= n) throw OnnxImportError(what + ": index " + std::to_string(i) + " is out of range for a dimension of " + std::to_string(n));
    if (i < 0) i += n;
  }
  return map_data(data, out, [&](auto in, auto res) {
    std::size_t at = 0;
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t j : idx)
        for (std::int64_t i = 0; i < inner; ++i) res[at++] = in[static_cast<std::size_t>((o * n + j) * inner + i)];
  });
}

/// ONNX Slice on a constant (negative steps included).
inline Constant slice(Constant const& c, std::vector<std::int64_t> const& starts, std::vector<std::int64_t> const& ends,
                      std::vector<std::int64_t> axes, std::vector<std::int64_t> steps, std::string const& what) {
  std::size_t r = c.shape.rank();
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    throw OnnxImportError(what + ": starts, ends, axes and steps differ in length");
  Shape out = c.shape;
  cpu::Strides st = strides_of(c.shape), src = st;
  std::int64_t origin = 0;
  std::vector<bool> seen(r);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    std::size_t a = axis_of(axes[i], r, what);
    if (seen[a]) throw OnnxImportError(what + ": axis " + std::to_string(axes[i]) + " is sliced twice");
    seen[a] = true;
    std::int64_t n = c.shape[a], step = steps[i];
    if (step == 0) throw OnnxImportError(what + ": slice step 0");
    auto norm = [n](std::int64_t v) { return v < 0 ? (v < -n ? -1 : v + n) : v; };  // -1: before the start
    std::int64_t s = norm(starts[i]), e = norm(ends[i]), count;
    // A step longer than the axis takes one element at most; clamping it keeps the
    // arithmetic below from overflowing.
    std::int64_t m = std::min(step > 0 ? step : (step < -n ? n + 1 : -step), n + 1);
    if (step > 0) {
      s = std::clamp<std::int64_t>(s, 0, n);
      e = std::clamp<std::int64_t>(e, 0, n);
      count = e > s ? (e - s - 1) / m + 1 : 0;
    } else {
      s = std::clamp<std::int64_t>(s, -1, n - 1);
      e = std::clamp<std::int64_t>(e, -1, n - 1);
      count = s > e ? (s - e - 1) / m + 1 : 0;
    }
    out[a] = count;
    if (count > 0) origin += s * st[a];
    src[a] = count > 1 ? step * st[a] : 0;
  }
  if (out.numel() == 0) return map_data(c, out, [](auto, auto) {});
  return strided_copy(c, out, src, origin);
}

inline Constant range(Constant const& start, Constant const& limit, Constant const& delta, std::string const& what) {
  if (start.numel() != 1 || limit.numel() != 1 || delta.numel() != 1) throw OnnxImportError(what + ": Range takes scalars");
  double s = start.number(0), l = limit.number(0), d = delta.number(0);
  if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) throw OnnxImportError(what + ": invalid Range");
  double count = std::max(std::ceil((l - s) / d), 0.0);
  if (count > static_cast<double>(max_folded_elements)) throw OnnxImportError(what + ": Range of " + std::to_string(count) + " elements is too large");
  auto n = static_cast<std::int64_t>(count);
  if (start.is_float()) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = to_float(s + static_cast<double>(i) * d);
    return Constant::of_floats(Shape{n}, std::move(v), start.dtype);
  }
  if (!(std::fabs(s + count * d) < 9.2e18)) throw OnnxImportError(what + ": Range overflows int64");
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = start.ints[0] + i * delta.ints[0];
  return Constant::of_ints(Shape{n}, std::move(v), start.dtype);
}

/// A tensor of `shape` (an int64 constant) filled with the single value of `value`.
inline Constant filled(std::vector<std::int64_t> const& dims, Constant const& value, std::string const& what) {
  Shape s = checked_shape(dims, what);
  check_folded_size(s.numel(), 0, what);
  if (value.numel() != 1) throw OnnxImportError(what + ": the fill value must have one element");
  if (value.is_float()) return Constant::of_floats(s, std::vector<float>(static_cast<std::size_t>(s.numel()), (*value.floats)[0]), value.dtype);
  return Constant::of_ints(s, std::vector<std::int64_t>(static_cast<std::size_t>(s.numel()), value.ints[0]), value.dtype);
}

/// Expand: broadcast c against `dims` (both ways, as ONNX Expand).
inline Constant expand(Constant const& c, std::vector<std::int64_t> const& dims, std::string const& what) {
  Shape target = checked_shape(dims, what), out;
  try {
    out = broadcast(c.shape, target);
  } catch (ShapeError const& e) {
    throw OnnxImportError(what + ": " + e.what());
  }
  check_folded_size(out.numel(), c.numel(), what);
  return strided_copy(c, out, cpu::broadcast_strides(c.shape, out), 0);
}

enum class FoldReduce { sum, mean, prod, min, max };

inline Constant reduce(FoldReduce k, Constant const& c, std::vector<std::int64_t> const& axes, bool keepdims, std::string const& what) {
  std::size_t r = c.shape.rank();
  std::vector<bool> red(r, axes.empty());
  for (auto a : axes) red[axis_of(a, r, what)] = true;
  Shape kept = c.shape;
  std::vector<std::int64_t> dims;
  for (std::size_t d = 0; d < r; ++d) {
    if (red[d]) kept[d] = 1;
    if (!red[d]) dims.push_back(c.shape[d]);
    else if (keepdims) dims.push_back(1);
  }
  std::size_t n = static_cast<std::size_t>(kept.numel());
  double init = k == FoldReduce::prod ? 1 : k == FoldReduce::min ? INFINITY : k == FoldReduce::max ? -INFINITY : 0;
  std::vector<double> acc(n, init);
  cpu::for_each_index<2>(c.shape, {strides_of(c.shape), cpu::broadcast_strides(kept, c.shape)}, [&](auto const& o) {
    double x = c.number(static_cast<std::size_t>(o[0]));
    double& a = acc[static_cast<std::size_t>(o[1])];
    switch (k) {
      case FoldReduce::sum: case FoldReduce::mean: a += x; break;
      case FoldReduce::prod: a *= x; break;
      case FoldReduce::min: a = std::min(a, x); break;
      case FoldReduce::max: a = std::max(a, x); break;
    }
  });
  if (k == FoldReduce::mean) {
    double count = static_cast<double>(c.numel()) / static_cast<double>(std::max<std::int64_t>(kept.numel(), 1));
    for (double& a : acc) a /= count;
  }
  Shape out = checked_shape(dims, what);
  if (c.is_float()) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = to_float(acc[i]);
    return Constant::of_floats(out, std::move(v), c.dtype);
  }
  std::vector<std::int64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!(std::fabs(acc[i]) < 9.2e18)) throw OnnxImportError(what + ": integer reduction overflows");
    v[i] = static_cast<std::int64_t>(acc[i]);
  }
  return Constant::of_ints(out, std::move(v), c.dtype);
}

/// Split into pieces of `sizes` along `axis`.
inline std::vector<Constant> split(Constant const& c, std::int64_t axis, std::vector<std::int64_t> const& sizes, std::string const& what) {
  std::size_t a = axis_of(axis, c.shape.rank(), what);
  std::vector<Constant> out;
  std::int64_t at = 0;
  for (std::int64_t n : sizes) {
    std::vector<std::int64_t> starts{at}, ends{at + n}, axes{static_cast<std::int64_t>(a)};
    out.push_back(slice(c, starts, ends, axes, {}, what));
    at += n;
  }
  return out;
}

}  // namespace autograph::onnx_detail
