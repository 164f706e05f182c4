#pragma once
// ONNX export: a graph (imported, built, or optimized) written as a standard ONNX model that
// onnx.checker accepts and that computes what the graph computes. Fused forms are lowered to
// standard operators:
//   Conv2D / MatMul with an activation  -> Conv / MatMul followed by Relu, Sigmoid or Tanh
//   Scale(s, t)                         -> Mul by s, then Add t (constants; either omitted when trivial)
//   Enlarge                             -> Pad of the kernel's spatial axes
//   Gelu                                -> x * 0.5 * (1 + Erf(x / sqrt(2)))   (Gelu is not in opset 17)
//   Reduce                              -> ReduceMean / ReduceSum
// Weights become initializers (raw little-endian data); a weight without data is an
// OnnxExportError (give it data first, e.g. fill_random_weights(graph, seed)).
//
// Link autograph::onnx (CMake); the implementation is src/io/onnx/exporter.cpp.
#include <filesystem>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "autograph/graph/graph.hpp"
#include "autograph/io/onnx/errors.hpp"

namespace autograph {

struct OnnxExportOptions {
  /// Names of the graph's outputs, in order; empty: each output is named after its producer.
  std::vector<std::string> output_names{};
  std::string graph_name = "autograph";
  std::string producer_name = "autograph";
  std::string doc{};  // the model's doc_string
};

/// The opset the exporter writes (LayerNormalization needs 17).
inline constexpr std::int64_t onnx_export_opset = 17;

::onnx::ModelProto export_onnx_model(Graph<BuiltinOps> const& g, OnnxExportOptions const& options = {});

/// Writes the model to `path`; throws OnnxExportError when the file cannot be written.
void export_onnx(Graph<BuiltinOps> const& g, std::filesystem::path const& path, OnnxExportOptions const& options = {});

}  // namespace autograph
