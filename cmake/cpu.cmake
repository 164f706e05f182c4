# autograph::cpu — the kernels of the built-in operators on the CPU runtime
# (include/autograph/cpu/ops.hpp, src/cpu/). They run through oneDNN (Debian's libdnnl-dev),
# whose C++ header alone is some 13,000 lines: it is included only in src/cpu/*.cpp, compiled
# once into this static library, never in a public header. Like autograph::cuda, what depends
# on the operator set (lowering a Graph<Set>) stays in the headers.
# The tests, the tool and the benchmarks need it; a plain library build (the package test's)
# does not, and builds it when oneDNN is there. Sets AUTOGRAPH_HAVE_CPU_KERNELS.
set(AUTOGRAPH_HAVE_CPU_KERNELS OFF)
if(AUTOGRAPH_BUILD_TESTS OR AUTOGRAPH_BUILD_TOOLS OR AUTOGRAPH_BUILD_BENCHMARKS)
  set(_autograph_cpu_required REQUIRED)
else()
  set(_autograph_cpu_required QUIET)
endif()
find_package(dnnl CONFIG ${_autograph_cpu_required})
# oneDNN's Debian build threads with OpenMP (DNNL_CPU_RUNTIME=OMP): a primitive reads
# omp_get_max_threads() when it is created, and our own loops use the same OpenMP.
find_package(OpenMP ${_autograph_cpu_required} COMPONENTS CXX)
if(NOT TARGET DNNL::dnnl OR NOT TARGET OpenMP::OpenMP_CXX)
  message(STATUS "autograph: oneDNN or OpenMP not found (Debian: libdnnl-dev); the CPU runtime's kernels are left out")
  return()
endif()
set(AUTOGRAPH_HAVE_CPU_KERNELS ON)
message(STATUS "autograph: oneDNN ${dnnl_VERSION} (CPU runtime ${DNNL_CPU_RUNTIME}); building autograph::cpu")

file(GLOB _autograph_cpu_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cpu/*.cpp)
add_library(autograph_cpu STATIC ${_autograph_cpu_sources})
add_library(autograph::cpu ALIAS autograph_cpu)
# SYSTEM: oneDNN's headers are not ours to keep warning-free.
get_target_property(_autograph_dnnl_includes DNNL::dnnl INTERFACE_INCLUDE_DIRECTORIES)
target_include_directories(autograph_cpu SYSTEM PRIVATE ${_autograph_dnnl_includes})
target_link_libraries(autograph_cpu PUBLIC autograph::autograph PRIVATE DNNL::dnnl OpenMP::OpenMP_CXX $<BUILD_INTERFACE:autograph_project_options>)
set_target_properties(autograph_cpu PROPERTIES EXPORT_NAME cpu POSITION_INDEPENDENT_CODE ON)
