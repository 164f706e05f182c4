# Installs autograph (headers, autograph::defaults and autograph::cpu, package config) from the
# build the other tests ran against, and builds two consumers against it: one header-only, one
# linking autograph::defaults. First a library-only configure (everything optional off, as a
# user who only installs it configures) must succeed: building it again would take three
# minutes of CI for the same objects, so the installed package is the tested build's.
file(REMOVE_RECURSE ${BUILD_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BUILD_DIR}/lib -DCMAKE_CXX_COMPILER=${CXX}
    -DAUTOGRAPH_BUILD_TESTS=OFF -DAUTOGRAPH_BUILD_BENCHMARKS=OFF -DAUTOGRAPH_BUILD_TOOLS=OFF
    -DAUTOGRAPH_BUILD_EXAMPLES=OFF -DAUTOGRAPH_CUDA=OFF -DCMAKE_INSTALL_PREFIX=${BUILD_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${PROJECT_BUILD_DIR} --prefix ${BUILD_DIR}/prefix)
run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${BUILD_DIR}/consumer -DCMAKE_CXX_COMPILER=${CXX}
    -DCMAKE_PREFIX_PATH=${BUILD_DIR}/prefix)
run(${CMAKE_COMMAND} --build ${BUILD_DIR}/consumer)
run(${BUILD_DIR}/consumer/consumer)
run(${BUILD_DIR}/consumer/consumer_defaults)
message(STATUS "both consumers built against the installed package and ran")
