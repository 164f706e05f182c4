#pragma once
// The per-operator translations' shared pieces. One translation per ONNX operator reads the
// node's inputs and attributes, then either folds it (every input constant and the operator
// computable here) or adds the built-in ops that compute it; anything outside what it handles
// throws OnnxUnsupportedError naming the node and the feature, nothing is ever skipped. The
// translations live in src/io/onnx/import_nn.cpp (convolution, pooling, normalisation, linear
// algebra, resizing), import_elementwise.cpp and import_shape.cpp (shapes, data movement,
// reductions, constants): separate files so the build compiles them in parallel.
#include <cmath>
#include <functional>
#include <numbers>
#include <string_view>

#include "autograph/io/onnx/detail/import_context.hpp"

namespace autograph::onnx_detail {

using Translation = void (*)(ImportContext&);

// ---- shared helpers ---------------------------------------------------------------------------

/// NCL -> NC1L for the 1-D forms of Conv/ConvTranspose/pooling, which run as 2-D ops.
inline Value unsqueeze_h(ImportContext& c, Value x, std::string const& role) {
  Shape s = c.shape(x);
  return c.add(Reshape{{s[0], s[1], 1, s[2]}}, {x}, role);
}
inline Value reshape_to(ImportContext& c, Value x, Shape const& s, std::string const& role = {}) {
  if (c.shape(x) == s) return x;
  return c.add(Reshape{std::vector<std::int64_t>(s.begin(), s.end())}, {x}, role);
}

/// Spatial geometry shared by Conv, ConvTranspose and the pools, for 1 or 2 spatial dims.
struct Window {
  std::vector<std::int64_t> kernel, stride, dilation, pads;  // pads: begins then ends
};

/// Reads strides/dilations/pads, and resolves auto_pad for an output of ceil(in / stride)
/// (SAME_UPPER puts the odd cell at the end, SAME_LOWER at the beginning).
inline Window read_window(ImportContext& c, std::span<std::int64_t const> in, std::vector<std::int64_t> kernel, bool dilations_allowed) {
  std::size_t k = in.size();
  Window w;
  w.kernel = std::move(kernel);
  w.stride = c.checked_ints("strides", std::vector<std::int64_t>(k, 1), 1);
  w.dilation = c.checked_ints("dilations", std::vector<std::int64_t>(k, 1), 1);
  w.pads = c.checked_ints("pads", std::vector<std::int64_t>(2 * k, 0), 0);
  if (w.stride.size() != k || w.dilation.size() != k || w.pads.size() != 2 * k)
    throw OnnxImportError(c.label() + ": strides, dilations or pads do not match " + std::to_string(k) + " spatial dimensions");
  if (!dilations_allowed && std::ranges::any_of(w.dilation, [](auto d) { return d != 1; }))
    throw OnnxUnsupportedError(c.label() + ": dilations other than 1 are not supported");
  std::string auto_pad = c.attr().s("auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    std::ranges::fill(w.pads, 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (std::size_t i = 0; i < k; ++i) {
      std::int64_t out = (in[i] + w.stride[i] - 1) / w.stride[i];
      std::int64_t eff = w.dilation[i] * (w.kernel[i] - 1) + 1;
      std::int64_t total = std::max<std::int64_t>((out - 1) * w.stride[i] + eff - in[i], 0);
      std::int64_t small = total / 2, large = total - small;
      w.pads[i] = auto_pad == "SAME_UPPER" ? small : large;
      w.pads[k + i] = auto_pad == "SAME_UPPER" ? large : small;
    }
  } else if (auto_pad != "NOTSET") {
    throw OnnxImportError(c.label() + ": unknown auto_pad '" + auto_pad + "'");
  }
  return w;
}

/// 2-D arrays from a 1- or 2-D window (1-D becomes height 1).
inline std::array<std::int64_t, 2> pair_of(std::vector<std::int64_t> const& v, std::int64_t one) {
  return v.size() == 1 ? std::array<std::int64_t, 2>{one, v[0]} : std::array<std::int64_t, 2>{v[0], v[1]};
}
inline std::array<std::int64_t, 4> pads_of(std::vector<std::int64_t> const& p) {
  return p.size() == 2 ? std::array<std::int64_t, 4>{0, p[0], 0, p[1]} : std::array<std::int64_t, 4>{p[0], p[1], p[2], p[3]};
}

inline std::size_t spatial_rank(ImportContext& c, Shape const& x, char const* what) {
  if (x.rank() == 3 || x.rank() == 4) return x.rank() - 2;
  if (x.rank() > 4)
    throw OnnxUnsupportedError(c.label() + ": " + std::to_string(x.rank() - 2) + "-D " + what + " is not supported (1-D and 2-D are)");
  throw OnnxImportError(c.label() + ": input must be at least 3-D (N, C, spatial...), got " + x.to_string());
}

/// Folds the node when every input is constant and `fold` computes it; returns whether it did.
template <class F>
bool try_fold(ImportContext& c, F&& fold) {
  if (!c.all_constant()) return false;
  c.output(0, fold());
  c.note_folded();
  return true;
}

inline std::vector<std::int64_t> axes_input(ImportContext& c, int since, char const* attr_name = "axes") {
  if (c.opset >= since) return c.ints(1, "axes");
  return c.attr().ints(attr_name);
}

// ---- the table --------------------------------------------------------------------------------

/// Every operator the importer translates, by ONNX op type ("domain:Op" outside the default
/// domain). Operators marked import-time only are computed while importing and need constant
/// inputs (shape arithmetic); the others become graph nodes.
struct OpEntry {
  Translation translate;
  bool import_time_only = false;
};
using TranslationTable = std::map<std::string, OpEntry, std::less<>>;

void add_network_translations(TranslationTable& t);      // import_nn.cpp
void add_elementwise_translations(TranslationTable& t);  // import_elementwise.cpp
void add_shape_translations(TranslationTable& t);        // import_shape.cpp

/// The whole table (built once).
inline TranslationTable const& translations() {
  static TranslationTable const table = [] {
    TranslationTable t;
    add_network_translations(t);
    add_elementwise_translations(t);
    add_shape_translations(t);
    return t;
  }();
  return table;
}

}  // namespace autograph::onnx_detail
