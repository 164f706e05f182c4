# autograph::cuda — the CUDA runtime (include/autograph/cuda/, src/cuda/). Included from the
# root CMakeLists.txt only when AUTOGRAPH_HAVE_CUDA (nvcc found).
#
# The library proper stays header-only; the CUDA runtime is a small static library because
# its kernels must be compiled by nvcc (src/cuda/*.cu, which include nothing of the library
# beyond autograph/cuda/kernels.hpp, so they compile in seconds) and because the host code
# that does not depend on the operator set (cuDNN/cuBLASLt plans, the lowerings of the
# built-in ops, memory planning, capture and replay; src/cuda/*.cpp) is better compiled once
# than in every translation unit that includes autograph/cuda/runtime.hpp. What depends on the
# operator set (lowering a Graph<Set>) stays in the headers.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 80 90)  # A100, H100/H200
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)

find_path(AUTOGRAPH_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
find_library(AUTOGRAPH_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} PATH_SUFFIXES lib64 lib)
if(NOT AUTOGRAPH_CUDNN_INCLUDE_DIR OR NOT AUTOGRAPH_CUDNN_LIBRARY)
  message(FATAL_ERROR "autograph: CUDA found but cuDNN not (cudnn.h / libcudnn.so next to the CUDA toolkit); "
                      "set AUTOGRAPH_CUDNN_INCLUDE_DIR and AUTOGRAPH_CUDNN_LIBRARY, or AUTOGRAPH_CUDA=OFF")
endif()
message(STATUS "autograph: cuDNN ${AUTOGRAPH_CUDNN_LIBRARY}; CUDA architectures ${CMAKE_CUDA_ARCHITECTURES}")

file(GLOB autograph_cuda_host_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cuda/*.cpp)
file(GLOB autograph_cuda_kernel_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cuda/*.cu)

# The host side on its own: autograph_cuda adds the kernels to it; the host tests
# (test/cuda/host/) add CPU versions of the same kernel functions instead, which checks every
# lowering's descriptors against the reference executor on machines without a GPU.
add_library(autograph_cuda_host OBJECT ${autograph_cuda_host_sources})
set_target_properties(autograph_cuda_host PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_include_directories(autograph_cuda_host SYSTEM PUBLIC ${AUTOGRAPH_CUDNN_INCLUDE_DIR})
target_link_libraries(autograph_cuda_host
  PUBLIC autograph::autograph CUDA::cudart CUDA::cublasLt ${AUTOGRAPH_CUDNN_LIBRARY}
  PRIVATE autograph_project_options)

add_library(autograph_cuda STATIC ${autograph_cuda_kernel_sources})
add_library(autograph::cuda ALIAS autograph_cuda)
set_target_properties(autograph_cuda PROPERTIES
  CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON CUDA_EXTENSIONS OFF  # the kernels need C++17 only; CMake 3.25 knows no CUDA20 flag for nvcc 13
  CUDA_RUNTIME_LIBRARY Shared          # one CUDA runtime in the process: the one CUDA::cudart links
  POSITION_INDEPENDENT_CODE ON)
target_link_libraries(autograph_cuda PUBLIC autograph_cuda_host)  # its objects go into this archive
target_compile_options(autograph_cuda PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra $<$<BOOL:${AUTOGRAPH_WERROR}>:--Werror=all-warnings>>)

# The GPU benchmark (scripts/gpu-bench.sh runs it): a program of its own, not a Google
# Benchmark one, because it writes one table of whole-model latencies per run.
if(AUTOGRAPH_BUILD_BENCHMARKS)
  find_package(CLI11 REQUIRED CONFIG)
  add_executable(gpu_bench ${PROJECT_SOURCE_DIR}/benchmark/gpu_bench.cpp)
  target_link_libraries(gpu_bench PRIVATE autograph::cuda autograph::defaults autograph_project_options CLI11::CLI11)
  # The GPU placement benchmark (issue 17): the CUDA runtime's backends, placed by measurement.
  add_executable(gpu_place ${PROJECT_SOURCE_DIR}/benchmark/gpu_place.cpp)
  target_link_libraries(gpu_place PRIVATE autograph::cuda autograph::defaults autograph_project_options CLI11::CLI11)
endif()
