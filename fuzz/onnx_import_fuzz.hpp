#pragma once
// One fuzzing step for the ONNX importer, shared by the libFuzzer target (onnx_import_fuzz.cpp)
// and the CI test that replays mutated real models (test/io/onnx_fuzz_test.cpp): the importer
// must either succeed or throw autograph::Error. Anything else escapes (a foreign exception
// fails the caller), and memory errors are for the sanitizers to catch.
#include <string_view>

#include "autograph/core/error.hpp"
#include "autograph/graph/validate.hpp"
#include "autograph/io/onnx/importer.hpp"

namespace autograph::fuzz {

/// Imports `bytes` twice: as given (dynamic dims are an error), and with every dynamic or
/// unknown input dimension fixed to 1, so mutated models get past the input checks.
/// Returns whether the second import produced a graph.
inline bool import_onnx(std::string_view bytes) {
  try {
    import_onnx_bytes(bytes);
  } catch (Error const&) {
  }
  ::onnx::ModelProto m;
  if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return false;
  OnnxImportOptions opt;
  for (auto const& vi : m.graph().input()) {
    if (!vi.type().tensor_type().has_shape() || vi.type().tensor_type().shape().dim_size() > 8) continue;
    std::vector<std::int64_t> dims;
    bool dynamic = false;
    for (auto const& d : vi.type().tensor_type().shape().dim()) {
      bool fixed = d.has_dim_value() && d.dim_value() >= 0 && d.dim_value() <= 64;
      dynamic = dynamic || !d.has_dim_value();
      dims.push_back(fixed ? d.dim_value() : 1);
    }
    if (dynamic) opt.input_shapes[vi.name()] = Shape(dims);
  }
  try {
    auto im = import_onnx_model(m, opt);
    validate(im.graph);
    return true;
  } catch (Error const&) {
    return false;
  }
}

}  // namespace autograph::fuzz
