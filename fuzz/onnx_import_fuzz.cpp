// libFuzzer target for the ONNX importer (built with -DAUTOGRAPH_BUILD_FUZZERS=ON and clang):
//   ./onnx_import_fuzz corpus/ /usr/share/libonnx-testdata/data/node/*/model.onnx
// Any exception other than autograph::Error aborts, and the sanitizers report memory errors.
#include <cstddef>
#include <cstdint>

#include "onnx_import_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  autograph::fuzz::import_onnx(std::string_view(reinterpret_cast<char const*>(data), size));
  return 0;
}
