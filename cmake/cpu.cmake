# autograph::cpu — the CPU runtime (autograph/cpu/): its set-independent part (the executable:
# memory plan, binding, stream threads) and the built-in operators' kernels through oneDNN,
# compiled once. oneDNN's headers stay in src/cpu/; the public headers never include them.
# Debian's oneDNN is built on OpenMP, whose per-thread thread count is how a kernel's
# intra-op threads are set.
# dnnl and OpenMP are found at the top (the targets linking autograph::cpu see them there).
file(GLOB autograph_cpu_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cpu/*.cpp)
# The tuned kernels (autograph/cpu/tuned/): our own loops with explicit tile parameters, no oneDNN.
file(GLOB autograph_cpu_tuned_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cpu/tuned/*.cpp)
add_library(autograph_cpu STATIC ${autograph_cpu_sources} ${autograph_cpu_tuned_sources})
add_library(autograph::cpu ALIAS autograph_cpu)
# Its baselines (src/cpu/baselines.cpp) use the precompiled rule engine of autograph::defaults.
target_link_libraries(autograph_cpu PUBLIC autograph::autograph autograph::defaults OpenMP::OpenMP_CXX PRIVATE DNNL::dnnl $<BUILD_INTERFACE:autograph_project_options>)
# Programs that link it get AUTOGRAPH_CPU_PRECOMPILED: cpu/lower.hpp then declares the built-in
# operators' lowering compiled here (src/cpu/lower.cpp) rather than compiling it again.
target_compile_definitions(autograph_cpu PUBLIC AUTOGRAPH_CPU_PRECOMPILED)
# One translation unit: the kernel files each parse oneDNN's headers, and the baselines and
# the lowering instantiate the same graph code; together they compile in about 34 s of CPU
# instead of 58 s. Not executable.cpp: its CpuExecutable::Impl holds types private to that file.
set_target_properties(autograph_cpu PROPERTIES EXPORT_NAME cpu POSITION_INDEPENDENT_CODE ON UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/cpu/executable.cpp PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
# Nor the tuned kernels: they parse no oneDNN header (nothing to share), and their functions
# compiled for AVX2 and AVX-512 (target attributes) stay apart from the rest.
set_source_files_properties(${autograph_cpu_tuned_sources} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
install(TARGETS autograph_cpu EXPORT autographTargets)
