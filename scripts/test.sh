#!/usr/bin/env bash
# README command 2 (and CI): install what is missing, build everything, run every test;
# then the same tests again under AddressSanitizer + UndefinedBehaviorSanitizer (without the
# CUDA, tool, benchmark and example targets, which the Release pass builds and runs: CI has
# 90 minutes on 2 cores and should stay under 45).
# Then the CPU runtime's tests under ThreadSanitizer.
# The Release pass builds in README command 1's folder (`build`) with command 1's flags (CMake's
# defaults, no -Werror): the library and tool objects command 1 compiled are then not compiled
# again with other flags (about 500 s of CPU, half of it CI's wall time on 2 cores). A compiler
# or linker warning still fails the pass: scripts/check-no-warnings.sh reads the build's output
# (and .ci/run reads command 1's). The sanitized passes have folders of their own, with -Werror.
# Disk: the build folders take about 7 GB at their largest (GCC's precompiled headers are
# memory images of 0.1-0.6 GB each). With AUTOGRAPH_LOW_DISK=1 (CI sets it) each pass's object
# files and precompiled headers are deleted once its tests have passed (its programs stay;
# on a failure everything stays; in `build`, command 1's library and tool objects stay too),
# so the peak is one pass's build; a rerun then compiles that pass again.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
start=$SECONDS
free_kb=$(df -Pk . | awk 'NR == 2 {print $4}')
echo "== disk: $((free_kb / 1024 / 1024)) GB free here (about 7 GB needed, 5.5 GB with AUTOGRAPH_LOW_DISK=1)"
free_pass() {  # free_pass BUILD_DIR [SUBFOLDER...]: after its tests passed, under AUTOGRAPH_LOW_DISK=1
  [[ ${AUTOGRAPH_LOW_DISK:-0} == 1 ]] || return 0
  local dir=$1 where=("$1")
  shift
  if (($#)); then
    where=()
    for sub in "$@"; do [[ -d $dir/$sub ]] && where+=("$dir/$sub"); done
  fi
  ((${#where[@]})) && find "${where[@]}" \( -name '*.o' -o -name '*.gch' \) -delete
  echo "== AUTOGRAPH_LOW_DISK: deleted the object files and precompiled headers of ${where[*]} ($(du -sh "$dir" | cut -f1) left in $dir)"
}

echo "== build (Release, command 1's folder and flags; a warning fails the pass)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DAUTOGRAPH_WERROR=OFF -DAUTOGRAPH_BUILD_TESTS=ON -DAUTOGRAPH_BUILD_BENCHMARKS=ON >/dev/null
cmake --build build -j "$jobs" 2>&1 | tee build/release-build.log
bash scripts/check-no-warnings.sh --build build build/release-build.log
echo "== test"
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 900
# Only the tests', benchmarks' and examples' objects: the library's and the tool's are README
# command 1's, which would compile them again (five minutes) on its next run in this folder.
free_pass build test benchmark examples

echo "== fuzz the ONNX importer (libFuzzer, coverage-guided, 60 s on each core; about 3 minutes with the build)"
bash scripts/fuzz.sh 60

echo "== build (ASan + UBSan)"
# -Og and line tables only (-g1). Measured on the 2-core Zen 3 VM (2026-11-28): -Og compiles
# about as fast as -O0 (a unit of the search tests 45 s at -O0, 47 at -Og, 84 at -O1) and
# its tests run 3x faster (353 s of wall time at -O0, 117 at -Og; the search tests spend their
# time in small header functions that -O0 calls one by one). Reports keep file:line.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DAUTOGRAPH_SANITIZE=ON -DAUTOGRAPH_WERROR=ON \
  -DAUTOGRAPH_BUILD_BENCHMARKS=OFF -DAUTOGRAPH_BUILD_TOOLS=OFF -DAUTOGRAPH_CUDA=OFF -DAUTOGRAPH_BUILD_EXAMPLES=OFF \
  -DCMAKE_CXX_FLAGS="-Og" -DCMAKE_CXX_FLAGS_DEBUG="-g1" >/dev/null
cmake --build build-asan -j "$jobs"
echo "== test (ASan + UBSan)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 1800 -LE "package" -E "^Slow"
free_pass build-asan

echo "== build (ThreadSanitizer: the CPU runtime's tests)"
# The stream threads, their waits and the shared arena under TSan. oneDNN itself is not
# instrumented (a Debian library), so what TSan checks is ours: the executor's ordering, our
# own kernels and every access of ours to the buffers. Left out of the pass: the test that
# breaks the arena plan on purpose (a race by design: it runs alone after, and TSan must report
# it) and the slow zoo sweep (run in the passes above). -Og, as the ASan pass: measured side by
# side on the 2-core Zen 3 VM (2026-11-28), the build 191 s (348 s of CPU) against 259 (470) at
# -O1, the two shards 64 s against 60, and the broken plan's race still reported.
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DAUTOGRAPH_TSAN=ON -DAUTOGRAPH_WERROR=ON \
  -DAUTOGRAPH_BUILD_BENCHMARKS=OFF -DAUTOGRAPH_BUILD_TOOLS=OFF -DAUTOGRAPH_CUDA=OFF -DAUTOGRAPH_BUILD_EXAMPLES=OFF \
  -DCMAKE_CXX_FLAGS="-Og" -DCMAKE_CXX_FLAGS_DEBUG="-g1" >/dev/null
cmake --build build-tsan -j "$jobs" --target cpu_tests
echo "== test (ThreadSanitizer)"
# In two shards side by side (gtest's sharding): one process kept one of the two cores busy
# on average (measured: 104 s of CPU in 105 s), the tests of a shard being mostly one thread.
tsan_pids=()
for shard in 0 1; do
  OMP_WAIT_POLICY=passive OPENBLAS_NUM_THREADS=1 GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$shard \
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/test/cpu/tsan.supp \
    build-tsan/test/cpu_tests --gtest_filter='-*OneWaitTooEarly*:Slow*' > build-tsan/shard-$shard.log 2>&1 &
  tsan_pids+=($!)
done
tsan_failed=0
for shard in 0 1; do
  if wait "${tsan_pids[$shard]}"; then
    grep -E "^\[  PASSED  \]|tests? from .* ran" build-tsan/shard-$shard.log | tail -n 2 || true
  else
    echo "ThreadSanitizer pass, shard $shard of 2, failed:"; cat build-tsan/shard-$shard.log; tsan_failed=1
  fi
done
[[ $tsan_failed == 0 ]] || exit 1

# ... and TSan must see the race of the plan broken on purpose (the check is not blind).
if OMP_WAIT_POLICY=passive OPENBLAS_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1:suppressions=$PWD/test/cpu/tsan.supp \
  build-tsan/test/cpu_tests --gtest_filter='*OneWaitTooEarly*' > build-tsan/broken-plan.log 2>&1 ||
  ! grep -q "ThreadSanitizer: data race" build-tsan/broken-plan.log; then
  echo "ThreadSanitizer did not report the race of the deliberately broken arena plan:"; cat build-tsan/broken-plan.log; exit 1
fi

echo "== all tests passed in $((SECONDS - start)) s; build folders: $(du -sch build build-fuzz build-asan build-tsan 2>/dev/null | tail -n 1 | cut -f1)"
