# autograph::onnx — ONNX import and export (include/autograph/io/onnx/, src/io/onnx/). It needs
# the ONNX protobuf classes (Debian's libonnx-dev: onnx/onnx_pb.h, libonnx_proto) and protobuf;
# the rest of the library never sees protobuf. Unlike the header-only core it is a small
# static library: the per-operator translation code is large, and compiling it once keeps
# every test and tool that imports models from rebuilding it.
# The tool, the tests and the fuzzers need it; a plain library build does not. Sets
# AUTOGRAPH_HAVE_ONNX.
set(AUTOGRAPH_HAVE_ONNX OFF)
if(AUTOGRAPH_BUILD_TESTS OR AUTOGRAPH_BUILD_TOOLS OR AUTOGRAPH_BUILD_FUZZERS)
  set(_autograph_onnx_required REQUIRED)
else()
  set(_autograph_onnx_required QUIET)
endif()
find_package(Protobuf ${_autograph_onnx_required})
if(Protobuf_FOUND)
  find_package(ONNX CONFIG ${_autograph_onnx_required})
endif()
if(TARGET onnx_proto AND TARGET protobuf::libprotobuf)
  set(AUTOGRAPH_HAVE_ONNX ON)
  file(GLOB _autograph_onnx_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/io/onnx/*.cpp)
  add_library(autograph_onnx STATIC ${_autograph_onnx_sources})
  add_library(autograph::onnx ALIAS autograph_onnx)
  # onnx_proto carries ONNX_ML=1 and ONNX_NAMESPACE=onnx, which the Debian headers expect.
  target_link_libraries(autograph_onnx PUBLIC autograph::autograph onnx_proto protobuf::libprotobuf PRIVATE autograph_project_options)
  # autograph::defaults: the built-in operators' tables every importer builds are compiled there
  # once. Not under clang, which cannot compile it (double template arguments) and builds the
  # importer only for the fuzzer (scripts/fuzz.sh): there the importer compiles what it uses.
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_link_libraries(autograph_onnx PUBLIC autograph::defaults)
  endif()
  # One translation unit: the five files parse the same ONNX and graph headers and instantiate
  # the same graph code; together they compile in half the CPU time (20 s instead of 39 s).
  set_target_properties(autograph_onnx PROPERTIES POSITION_INDEPENDENT_CODE ON UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
  message(STATUS "autograph: ONNX ${ONNX_VERSION} found; building autograph::onnx (ONNX import/export)")
else()
  message(STATUS "autograph: ONNX/protobuf not found (Debian: libonnx-dev libprotobuf-dev); ONNX import/export is left out")
endif()
