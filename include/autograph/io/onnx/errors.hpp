#pragma once
// What the ONNX importer and exporter throw. Kept apart from the protobuf headers so code
// that only catches these does not pay for them.
#include <map>
#include <string>

#include "autograph/core/error.hpp"

namespace autograph {

/// The model cannot be read or translated: malformed protobuf, a dangling value name, data of
/// the wrong size, an attribute of the wrong type. The message names the node and the value.
struct OnnxImportError : Error {
  using Error::Error;
};

/// The model is valid ONNX but uses something outside what the importer supports. `ops`
/// counts every unsupported operator type (domain-qualified outside the default domain);
/// it is empty when the problem is a feature of one node (an attribute value, a dtype).
struct OnnxUnsupportedError : OnnxImportError {
  OnnxUnsupportedError(std::string const& what, std::map<std::string, std::size_t> op_counts = {})
      : OnnxImportError(what), ops(std::move(op_counts)) {}
  std::map<std::string, std::size_t> ops;
};

/// A value the importer must know at import time (a shape, Clip's bounds, Resize's scales) is
/// a graph input. Models normally hold such values as initializers or Constant nodes; give the
/// value with OnnxImportOptions::constant_inputs to import the model anyway.
struct OnnxConstantRequiredError : OnnxUnsupportedError {
  OnnxConstantRequiredError(std::string const& what, std::string graph_input) : OnnxUnsupportedError(what), input(std::move(graph_input)) {}
  std::string input;  // the graph input whose value is needed
};

/// The graph cannot be written as ONNX (an op with no ONNX form, a weight without data).
struct OnnxExportError : Error {
  using Error::Error;
};

}  // namespace autograph
