#!/usr/bin/env bash
# README command 2 (and CI): install what is missing, build everything, run every test;
# then the same tests again under AddressSanitizer + UndefinedBehaviorSanitizer (without the
# CUDA, tool, benchmark and example targets, which the Release pass builds and runs: CI has
# 90 minutes on 2 cores and should stay under 45).
# Then the CPU runtime's tests under ThreadSanitizer.
# Build folders of its own (build-ci, build-asan, build-tsan): CMake caches flags, and sharing `build`
# with the README's first command would hand that command CI's -Werror and -O2.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
start=$SECONDS

echo "== build (Release, warnings as errors)"
cmake -S . -B build-ci -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DAUTOGRAPH_WERROR=ON >/dev/null
cmake --build build-ci -j "$jobs"
echo "== test"
ctest --test-dir build-ci --output-on-failure -j "$jobs" --timeout 900

echo "== fuzz the ONNX importer (libFuzzer, coverage-guided, 120 s; about 4 minutes with the build)"
bash scripts/fuzz.sh 120

echo "== build (ASan + UBSan)"
# -O0 and line tables only (-g1): on 2 cores the sanitized build took 16 minutes at -O1 -g
# and takes 7 at -O0 -g1; the tests then run 2.5 instead of 1 minute. Reports keep file:line.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DAUTOGRAPH_SANITIZE=ON -DAUTOGRAPH_WERROR=ON \
  -DAUTOGRAPH_BUILD_BENCHMARKS=OFF -DAUTOGRAPH_BUILD_TOOLS=OFF -DAUTOGRAPH_CUDA=OFF -DAUTOGRAPH_BUILD_EXAMPLES=OFF \
  -DCMAKE_CXX_FLAGS="-O0" -DCMAKE_CXX_FLAGS_DEBUG="-g1" >/dev/null
cmake --build build-asan -j "$jobs"
echo "== test (ASan + UBSan)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 1800 -LE "package" -E "^Slow"

echo "== build (ThreadSanitizer: the CPU runtime's tests)"
# The stream threads, their waits and the shared arena under TSan. oneDNN itself is not
# instrumented (a Debian library), so what TSan checks is ours: the executor's ordering, our
# own kernels and every access of ours to the buffers. Left out of the pass: the test that
# breaks the arena plan on purpose (a race by design: it runs alone after, and TSan must report
# it) and the slow zoo sweep (run in the passes above).
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DAUTOGRAPH_TSAN=ON -DAUTOGRAPH_WERROR=ON \
  -DAUTOGRAPH_BUILD_BENCHMARKS=OFF -DAUTOGRAPH_BUILD_TOOLS=OFF -DAUTOGRAPH_CUDA=OFF -DAUTOGRAPH_BUILD_EXAMPLES=OFF \
  -DCMAKE_CXX_FLAGS="-O1" -DCMAKE_CXX_FLAGS_DEBUG="-g1" >/dev/null
cmake --build build-tsan -j "$jobs" --target cpu_tests
echo "== test (ThreadSanitizer)"
OMP_WAIT_POLICY=passive OPENBLAS_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/test/cpu/tsan.supp \
  build-tsan/test/cpu_tests --gtest_filter='-*OneWaitTooEarly*:Slow*'

# ... and TSan must see the race of the plan broken on purpose (the check is not blind).
if OMP_WAIT_POLICY=passive OPENBLAS_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1:suppressions=$PWD/test/cpu/tsan.supp \
  build-tsan/test/cpu_tests --gtest_filter='*OneWaitTooEarly*' > build-tsan/broken-plan.log 2>&1 ||
  ! grep -q "ThreadSanitizer: data race" build-tsan/broken-plan.log; then
  echo "ThreadSanitizer did not report the race of the deliberately broken arena plan:"; cat build-tsan/broken-plan.log; exit 1
fi

echo "== all tests passed in $((SECONDS - start)) s"
