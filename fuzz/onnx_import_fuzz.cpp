// libFuzzer target for the ONNX importer (built with -DAUTOGRAPH_BUILD_FUZZERS=ON and clang 16;
// scripts/fuzz.sh builds it, seeds a corpus and runs it):
//   ./onnx_import_fuzz corpus/ seeds/     (folders; libFuzzer reads every file in them)
// Any exception other than autograph::Error aborts, and the sanitizers report memory errors.
#include <cstddef>
#include <cstdint>

#include "onnx_import_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  autograph::fuzz::import_onnx(std::string_view(reinterpret_cast<char const*>(data), size));
  return 0;
}
