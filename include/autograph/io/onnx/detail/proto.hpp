#pragma once
// The ONNX protobuf classes (Debian's libonnx-dev, linked through autograph::onnx) and the
// small pieces of reading them that importer and exporter share: element types, the checked
// decoding of a TensorProto into a Constant, and attribute access with type checks.
// Everything read from a model is untrusted: sizes are checked before anything is allocated.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autograph/io/onnx/errors.hpp"
#include "autograph/core/shape.hpp"
#include "autograph/core/tensor.hpp"

namespace autograph::onnx_detail {

using DataType = ::onnx::TensorProto_DataType;

inline std::string dtype_name(int t) {
  if (::onnx::TensorProto_DataType_IsValid(t)) return ::onnx::TensorProto_DataType_Name(static_cast<DataType>(t));
  return "data type " + std::to_string(t);
}
inline bool is_float_type(int t) {
  return t == ::onnx::TensorProto::FLOAT || t == ::onnx::TensorProto::DOUBLE || t == ::onnx::TensorProto::FLOAT16 ||
         t == ::onnx::TensorProto::BFLOAT16;
}
inline bool is_int_type(int t) {
  switch (t) {
    case ::onnx::TensorProto::UINT8: case ::onnx::TensorProto::INT8: case ::onnx::TensorProto::UINT16: case ::onnx::TensorProto::INT16:
    case ::onnx::TensorProto::INT32: case ::onnx::TensorProto::INT64: case ::onnx::TensorProto::UINT32:
    case ::onnx::TensorProto::UINT64: case ::onnx::TensorProto::BOOL:
      return true;
    default: return false;
  }
}

/// Elements any one tensor the importer makes may have: far above any real model's tensor,
/// far below where a product of dimensions could overflow.
inline constexpr std::int64_t max_elements = std::int64_t{1} << 40;
/// Elements a folded constant that is larger than its inputs may have (Expand, Range, ...).
inline constexpr std::int64_t max_folded_elements = std::int64_t{1} << 26;

/// The element count of `dims`, or nullopt when a dimension is negative or the product
/// exceeds max_elements.
inline std::optional<std::int64_t> checked_numel(std::span<std::int64_t const> dims) { return autograph::checked_numel(dims, max_elements); }

inline std::string dims_string(std::span<std::int64_t const> dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

/// A tensor known at import time: an initializer, a Constant node, or a folded result.
/// Float types are held as float32 (shared, so large weights are never copied), integer and
/// bool types as int64.
struct Constant {
  int dtype = ::onnx::TensorProto::FLOAT;
  Shape shape;
  std::shared_ptr<std::vector<float> const> floats;
  std::vector<std::int64_t> ints;

  bool is_float() const { return is_float_type(dtype); }
  std::int64_t numel() const { return shape.numel(); }
  double number(std::size_t i) const { return is_float() ? static_cast<double>((*floats)[i]) : static_cast<double>(ints[i]); }
  std::vector<double> as_doubles() const {
    std::vector<double> v(static_cast<std::size_t>(numel()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = number(i);
    return v;
  }
  std::string describe() const { return dtype_name(dtype) + shape.to_string(); }

  static Constant of_floats(Shape s, std::vector<float> v, int dtype = ::onnx::TensorProto::FLOAT) {
    return Constant{dtype, s, std::make_shared<std::vector<float> const>(std::move(v)), {}};
  }
  static Constant of_ints(Shape s, std::vector<std::int64_t> v, int dtype = ::onnx::TensorProto::INT64) {
    return Constant{dtype, s, nullptr, std::move(v)};
  }
};

/// A double as float; values beyond the float range become infinities (a plain conversion
/// would be undefined behaviour).
inline float to_float(double x) {
  constexpr double top = std::numeric_limits<float>::max();
  if (x > top) return std::numeric_limits<float>::infinity();
  if (x < -top) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(x);
}

/// IEEE half to float (every half value is exactly representable).
inline float half_to_float(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while (!(mant & 0x400u));
    bits = sign | (static_cast<std::uint32_t>(112 - e) << 23) | ((mant & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(bits);
}

/// Where a tensor's external data lives (the model file's folder); empty: external data is
/// not allowed (a model read from memory).
struct ExternalData {
  std::filesystem::path base;
};

/// The bytes of a tensor stored outside the model (data_location = EXTERNAL).
inline std::string read_external(::onnx::TensorProto const& t, ExternalData const& ext, std::string const& what) {
  if (ext.base.empty()) throw OnnxUnsupportedError(what + " keeps its data in an external file; import the model from a file path to read it");
  std::string location;
  std::int64_t offset = 0, length = -1;
  for (auto const& kv : t.external_data()) {
    try {
      if (kv.key() == "location") location = kv.value();
      else if (kv.key() == "offset") offset = std::stoll(kv.value());
      else if (kv.key() == "length") length = std::stoll(kv.value());
    } catch (std::exception const&) {
      throw OnnxImportError(what + ": external data entry '" + kv.key() + "' is not a number: '" + kv.value() + "'");
    }
  }
  std::filesystem::path rel(location);
  if (location.empty() || rel.is_absolute() || std::ranges::any_of(rel, [](auto const& part) { return part == ".."; }))
    throw OnnxImportError(what + ": external data location '" + location + "' must be a relative path inside the model's folder");
  std::filesystem::path file = ext.base / rel;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw OnnxImportError(what + ": cannot open external data file " + file.string());
  in.seekg(0, std::ios::end);
  std::int64_t size = static_cast<std::int64_t>(in.tellg());
  if (offset < 0 || offset > size || (length >= 0 && length > size - offset))
    throw OnnxImportError(what + ": external data range (offset " + std::to_string(offset) + ", length " + std::to_string(length) +
                      ") lies outside " + file.string() + " (" + std::to_string(size) + " bytes)");
  if (length < 0) length = size - offset;
  std::string bytes(static_cast<std::size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  if (!in) throw OnnxImportError(what + ": cannot read external data from " + file.string());
  return bytes;
}

/// Decodes a TensorProto. `what` names it in errors ("initializer 'conv1.weight'").
/// @throws OnnxImportError when the data does not match the dims; OnnxUnsupportedError for strings,
/// complex numbers and segmented tensors.
inline Constant to_constant(::onnx::TensorProto const& t, std::string const& what, ExternalData const& ext = {}) {
  using TP = ::onnx::TensorProto;
  int dt = t.data_type();
  if (!is_float_type(dt) && !is_int_type(dt))
    throw OnnxUnsupportedError(what + " is of type " + dtype_name(dt) + "; only numeric tensors are supported");
  if (t.has_segment()) throw OnnxUnsupportedError(what + " is segmented; segmented tensors are not supported");
  std::vector<std::int64_t> dims(t.dims().begin(), t.dims().end());
  if (dims.size() > Shape::max_rank)
    throw OnnxUnsupportedError(what + " has " + std::to_string(dims.size()) + " dimensions; at most 8 are supported");
  auto n = checked_numel(dims);
  if (!n) throw OnnxImportError(what + " has invalid dimensions " + dims_string(dims));
  std::size_t count = static_cast<std::size_t>(*n);
  Shape shape(dims);

  std::string external;
  std::string const* raw = nullptr;
  if (t.data_location() == TP::EXTERNAL) {
    external = read_external(t, ext, what);
    raw = &external;
  } else if (t.has_raw_data()) {
    raw = &t.raw_data();
  }
  std::size_t typed = 0;
  switch (dt) {
    case TP::FLOAT: typed = static_cast<std::size_t>(t.float_data_size()); break;
    case TP::DOUBLE: typed = static_cast<std::size_t>(t.double_data_size()); break;
    case TP::INT64: typed = static_cast<std::size_t>(t.int64_data_size()); break;
    case TP::UINT32: case TP::UINT64: typed = static_cast<std::size_t>(t.uint64_data_size()); break;
    default: typed = static_cast<std::size_t>(t.int32_data_size()); break;
  }
  std::size_t elem = 0;
  switch (dt) {
    case TP::UINT8: case TP::INT8: case TP::BOOL: elem = 1; break;
    case TP::UINT16: case TP::INT16: case TP::FLOAT16: case TP::BFLOAT16: elem = 2; break;
    case TP::FLOAT: case TP::INT32: case TP::UINT32: elem = 4; break;
    default: elem = 8; break;
  }
  if (raw) {
    if (raw->size() != count * elem)
      throw OnnxImportError(what + " " + dtype_name(dt) + dims_string(dims) + " needs " + std::to_string(count * elem) + " bytes of data, has " +
                        std::to_string(raw->size()));
  } else if (typed != count) {
    throw OnnxImportError(what + " " + dtype_name(dt) + dims_string(dims) + " needs " + std::to_string(count) + " values, has " + std::to_string(typed));
  }
  // Raw data is little-endian (the ONNX spec), as is every platform this builds for.
  static_assert(std::endian::native == std::endian::little, "the ONNX raw_data reader assumes a little-endian host");
  auto raw_at = [&]<class T>(std::size_t i, T*) {
    T v;
    std::memcpy(&v, raw->data() + i * sizeof(T), sizeof(T));
    return v;
  };

  Constant c;
  c.dtype = dt;
  c.shape = shape;
  if (is_float_type(dt)) {
    std::vector<float> v(count);
    for (std::size_t i = 0; i < count; ++i) {
      switch (dt) {
        case TP::FLOAT: v[i] = raw ? raw_at(i, static_cast<float*>(nullptr)) : t.float_data(static_cast<int>(i)); break;
        case TP::DOUBLE: v[i] = to_float(raw ? raw_at(i, static_cast<double*>(nullptr)) : t.double_data(static_cast<int>(i))); break;
        case TP::FLOAT16: {
          auto bits = raw ? raw_at(i, static_cast<std::uint16_t*>(nullptr)) : static_cast<std::uint16_t>(t.int32_data(static_cast<int>(i)));
          v[i] = half_to_float(bits);
          break;
        }
        default: {  // BFLOAT16: the high half of a float
          auto bits = raw ? raw_at(i, static_cast<std::uint16_t*>(nullptr)) : static_cast<std::uint16_t>(t.int32_data(static_cast<int>(i)));
          v[i] = std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
          break;
        }
      }
    }
    c.floats = std::make_shared<std::vector<float> const>(std::move(v));
  } else {
    c.ints.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      int k = static_cast<int>(i);
      std::int64_t x = 0;
      switch (dt) {
        case TP::UINT8: x = raw ? raw_at(i, static_cast<std::uint8_t*>(nullptr)) : static_cast<std::uint8_t>(t.int32_data(k)); break;
        case TP::BOOL: x = (raw ? raw_at(i, static_cast<std::uint8_t*>(nullptr)) : t.int32_data(k)) != 0; break;
        case TP::INT8: x = raw ? raw_at(i, static_cast<std::int8_t*>(nullptr)) : static_cast<std::int8_t>(t.int32_data(k)); break;
        case TP::UINT16: x = raw ? raw_at(i, static_cast<std::uint16_t*>(nullptr)) : static_cast<std::uint16_t>(t.int32_data(k)); break;
        case TP::INT16: x = raw ? raw_at(i, static_cast<std::int16_t*>(nullptr)) : static_cast<std::int16_t>(t.int32_data(k)); break;
        case TP::INT32: x = raw ? raw_at(i, static_cast<std::int32_t*>(nullptr)) : t.int32_data(k); break;
        case TP::UINT32: x = raw ? raw_at(i, static_cast<std::uint32_t*>(nullptr)) : static_cast<std::uint32_t>(t.uint64_data(k)); break;
        case TP::INT64: x = raw ? raw_at(i, static_cast<std::int64_t*>(nullptr)) : t.int64_data(k); break;
        default:  // UINT64: values above INT64_MAX wrap, as a C++ conversion would
          x = static_cast<std::int64_t>(raw ? raw_at(i, static_cast<std::uint64_t*>(nullptr)) : t.uint64_data(k));
          break;
      }
      c.ints[i] = x;
    }
  }
  return c;
}

/// A float32 tensor from a TensorProto (test data, constant inputs).
inline Tensor to_tensor(::onnx::TensorProto const& t, std::string const& what = "tensor") {
  if (t.data_type() != ::onnx::TensorProto::FLOAT)
    throw OnnxUnsupportedError(what + " is of type " + dtype_name(t.data_type()) + "; only FLOAT tensors convert to autograph::Tensor");
  Constant c = to_constant(t, what);
  return Tensor(c.shape, c.floats);
}

/// A TensorProto holding `c` (float types written as FLOAT, integer types as INT64 unless
/// `dtype` says otherwise), raw little-endian data.
inline ::onnx::TensorProto to_proto(Constant const& c, std::string const& name) {
  ::onnx::TensorProto t;
  t.set_name(name);
  for (std::int64_t d : c.shape) t.add_dims(d);
  if (c.is_float()) {
    t.set_data_type(::onnx::TensorProto::FLOAT);
    t.set_raw_data(std::string(reinterpret_cast<char const*>(c.floats->data()), c.floats->size() * sizeof(float)));
  } else {
    t.set_data_type(c.dtype == ::onnx::TensorProto::BOOL ? ::onnx::TensorProto::BOOL : ::onnx::TensorProto::INT64);
    if (c.dtype == ::onnx::TensorProto::BOOL) {
      std::string bytes(c.ints.size(), '\0');
      for (std::size_t i = 0; i < c.ints.size(); ++i) bytes[i] = c.ints[i] ? 1 : 0;
      t.set_raw_data(bytes);
    } else {
      t.set_raw_data(std::string(reinterpret_cast<char const*>(c.ints.data()), c.ints.size() * sizeof(std::int64_t)));
    }
  }
  return t;
}

/// Typed access to a node's attributes; a wrong type is an OnnxImportError naming the node.
class Attributes {
 public:
  Attributes(::onnx::NodeProto const& n, std::string label) : node_(n), label_(std::move(label)) {}

  ::onnx::AttributeProto const* find(std::string_view name) const {
    for (auto const& a : node_.attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  bool has(std::string_view name) const { return find(name) != nullptr; }

  std::int64_t i(std::string_view name, std::int64_t dflt) const {
    auto const* a = typed(name, ::onnx::AttributeProto::INT);
    return a ? a->i() : dflt;
  }
  float f(std::string_view name, float dflt) const {
    auto const* a = typed(name, ::onnx::AttributeProto::FLOAT);
    return a ? a->f() : dflt;
  }
  std::string s(std::string_view name, std::string dflt) const {
    auto const* a = typed(name, ::onnx::AttributeProto::STRING);
    return a ? a->s() : dflt;
  }
  std::vector<std::int64_t> ints(std::string_view name, std::vector<std::int64_t> dflt = {}) const {
    auto const* a = typed(name, ::onnx::AttributeProto::INTS);
    return a ? std::vector<std::int64_t>(a->ints().begin(), a->ints().end()) : dflt;
  }
  std::vector<float> floats(std::string_view name, std::vector<float> dflt = {}) const {
    auto const* a = typed(name, ::onnx::AttributeProto::FLOATS);
    return a ? std::vector<float>(a->floats().begin(), a->floats().end()) : dflt;
  }
  ::onnx::TensorProto const* tensor(std::string_view name) const {
    auto const* a = typed(name, ::onnx::AttributeProto::TENSOR);
    return a ? &a->t() : nullptr;
  }
  /// Throws OnnxUnsupportedError naming the first attribute not in `known`.
  void only(std::initializer_list<std::string_view> known) const {
    for (auto const& a : node_.attribute())
      if (std::ranges::find(known, std::string_view(a.name())) == known.end())
        throw OnnxUnsupportedError(label_ + ": attribute '" + a.name() + "' is not supported");
  }

 private:
  ::onnx::AttributeProto const* typed(std::string_view name, ::onnx::AttributeProto::AttributeType want) const {
    auto const* a = find(name);
    if (!a) return nullptr;
    // Attributes written before IR version 2 may lack the type field; infer it from the payload.
    auto type = a->type();
    if (type == ::onnx::AttributeProto::UNDEFINED) {
      if (a->has_i()) type = ::onnx::AttributeProto::INT;
      else if (a->has_f()) type = ::onnx::AttributeProto::FLOAT;
      else if (a->has_s()) type = ::onnx::AttributeProto::STRING;
      else if (a->has_t()) type = ::onnx::AttributeProto::TENSOR;
      else if (a->ints_size()) type = ::onnx::AttributeProto::INTS;
      else if (a->floats_size()) type = ::onnx::AttributeProto::FLOATS;
    }
    if (type != want)
      throw OnnxImportError(label_ + ": attribute '" + a->name() + "' is " + ::onnx::AttributeProto_AttributeType_Name(type) + ", expected " +
                        ::onnx::AttributeProto_AttributeType_Name(want));
    return a;
  }
  ::onnx::NodeProto const& node_;
  std::string label_;
};

}  // namespace autograph::onnx_detail
