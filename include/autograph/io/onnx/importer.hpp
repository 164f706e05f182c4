#pragma once
// ONNX import: a model file becomes a Graph of built-in ops with its weights.
//
//   auto m = import_onnx("resnet50.onnx", {.input_shapes = {{"input", {1, 3, 224, 224}}}});
//   auto out = ReferenceExecutor<>{}.run(m.graph, {{"input", x}});
//
// The importer never produces a partial graph. Before translating anything it checks every
// node's operator type, and an unknown one is an OnnxUnsupportedError that lists every unsupported
// type with its count and its first nodes' names, e.g. "If (1: 'cond')". Dynamic dimensions must be fixed by the caller (a missing one is an
// error naming the input); with all shapes fixed, the shape arithmetic exporters emit (Shape,
// Gather, Concat, Range, Cast, ...) is evaluated at import time, so the graph sees static shapes.
// Initializers become Weight nodes holding their data (float32; raw_data, typed fields and
// external data files are read). Malformed files throw OnnxImportError, never crash.
//
// Outside the supported scope, and refused with an OnnxUnsupportedError naming the node:
//   - runtime tensors other than float32 (integer, bool, float16 or double inputs and outputs;
//     Cast of a runtime tensor to anything but FLOAT); such values may only appear in the
//     import-time arithmetic
//   - 3-D convolution and pooling (1-D runs as 2-D), MaxPool dilations and its indices output
//   - training: BatchNormalization/Dropout training_mode, Dropout's mask, BN running statistics
//   - Pad modes other than constant; Slice with negative steps on a runtime tensor
//   - Resize antialias and keep_aspect_ratio_policy other than stretch; cubic before opset 11
//   - operators marked import-time only by supported_onnx_ops() (Shape, Range, Where, Equal, ...)
//     reading a value known only at run time
//   - control flow, sequences, sparse and string tensors (as unsupported operator types/inputs)
//
// Link autograph::onnx (CMake) to use this header: the implementation is compiled once, in
// src/io/onnx/importer.cpp (it is large; every test and tool would otherwise rebuild it).
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <onnx/onnx_pb.h>

#include "autograph/core/tensor.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/io/onnx/errors.hpp"

namespace autograph {

struct OnnxImportOptions {
  /// Shapes of graph inputs, by name. Required for every input with a dynamic (symbolic or
  /// unknown) dimension; a shape given for a static input must agree with it.
  std::map<std::string, Shape> input_shapes{};
  /// Graph inputs whose values are fixed: they become constants (folded or Weight nodes)
  /// instead of Input nodes. Lets models that feed shapes or Clip bounds as graph inputs import.
  std::map<std::string, ::onnx::TensorProto> constant_inputs{};
};

struct ImportedOnnxModel {
  Graph<BuiltinOps> graph;
  std::vector<std::string> input_names;   // the graph's Input labels, in the order of graph.inputs()
  std::vector<std::string> output_names;  // ONNX names of graph.outputs(), in order
  /// Inputs the file declares with dynamic (symbolic or unknown) dimensions, fixed by
  /// OnnxImportOptions::input_shapes: name -> the file's dimensions, e.g. "[batch,3,224,224]".
  /// The graph holds the fixed shapes only; a model exported from it is static.
  std::map<std::string, std::string> dynamic_inputs;
  std::int64_t ir_version = 0;
  std::int64_t opset = 0;  // of the default (ai.onnx) domain
  std::string producer;    // producer_name and version, e.g. "pytorch 2.1.0"
  std::map<std::string, std::size_t> onnx_ops;  // the model's nodes by operator type
  std::size_t folded = 0;                       // nodes evaluated at import time
};

/// Operator types the importer translates ("domain:Op" outside the default domain), each with
/// whether it is evaluated at import time only (then its inputs must be constant).
std::map<std::string, bool> supported_onnx_ops();

/// Imports a parsed model. External tensor data is resolved against `external_data_dir`
/// (empty: external data is an error).
ImportedOnnxModel import_onnx_model(::onnx::ModelProto const& model, OnnxImportOptions const& options = {},
                                    std::filesystem::path const& external_data_dir = {});

/// Imports a model from its serialized bytes.
ImportedOnnxModel import_onnx_bytes(std::string_view bytes, OnnxImportOptions const& options = {},
                                    std::filesystem::path const& external_data_dir = {});

/// Imports a model file; external data files are looked up next to it.
ImportedOnnxModel import_onnx(std::filesystem::path const& path, OnnxImportOptions const& options = {});

/// Reads a serialized TensorProto (the ONNX test data's input_0.pb).
::onnx::TensorProto read_onnx_tensor(std::filesystem::path const& path);

/// A float32 Tensor from a FLOAT TensorProto (OnnxUnsupportedError for other types).
Tensor onnx_to_tensor(::onnx::TensorProto const& t);

/// "Conv", or "com.microsoft:Gelu" outside the default domain: how op types are keyed.
std::string onnx_op_key(::onnx::NodeProto const& n);

namespace onnx_detail {
/// The whole contents of a file (a model, a TensorProto); OnnxImportError when unreadable.
std::string read_file_bytes(std::filesystem::path const& path);
}  // namespace onnx_detail

}  // namespace autograph
