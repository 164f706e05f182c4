#!/usr/bin/env bash
# Coverage-guided fuzzing of the ONNX importer for SECONDS of wall time (default 60), one
# fuzzing process per core sharing one corpus (libFuzzer's -jobs; FUZZ_WORKERS overrides the
# count):
#   bash scripts/fuzz.sh [SECONDS]
# Builds fuzz/onnx_import_fuzz (libFuzzer + ASan + UBSan, clang 16) in build-fuzz, seeds it with
# every model of the ONNX test suite (libonnx-testdata), and runs it. Fails on any crash,
# sanitizer report, exception other than autograph::Error, 10 s input, leak or 4 GiB of memory;
# the input that did it is left in build-fuzz/artifacts/ with the command that replays it.
# The corpus it grows (build-fuzz/corpus) is kept, so later runs start where this one stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
workers=${FUZZ_WORKERS:-$(nproc)}
if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: SECONDS must be a whole number of seconds > 0, got '$seconds'" >&2
  exit 2
fi

# Clang 14, Debian 12's default, cannot compile GCC 12's <ranges> (fuzz/CMakeLists.txt).
bash scripts/install-deps.sh clang-16 libclang-rt-16-dev
start=$SECONDS

echo "== build onnx_import_fuzz (clang 16, libFuzzer, ASan + UBSan)"
# -O1 with line tables: a third faster to compile than -O3, readable reports. No NDEBUG, so
# the library's assertions are checked too.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1" \
  -DCMAKE_CXX_COMPILER=clang++-16 -DAUTOGRAPH_BUILD_FUZZERS=ON -DAUTOGRAPH_BUILD_TESTS=OFF -DAUTOGRAPH_BUILD_TOOLS=OFF \
  -DAUTOGRAPH_BUILD_BENCHMARKS=OFF -DAUTOGRAPH_BUILD_EXAMPLES=OFF -DAUTOGRAPH_CUDA=OFF >/dev/null
cmake --build build-fuzz --target onnx_import_fuzz -j "$(nproc)"
built=$SECONDS

# libFuzzer reads folders, not file lists: copy the suite's models under unique names.
seeds=build-fuzz/seeds
rm -rf "$seeds" && mkdir -p "$seeds" build-fuzz/corpus build-fuzz/artifacts
data=/usr/share/libonnx-testdata/data
for model in "$data"/{node,pytorch-converted,pytorch-operator,simple}/*/model.onnx; do
  dir=$(dirname "$model")
  cp "$model" "$seeds/$(basename "$(dirname "$dir")")_$(basename "$dir").onnx"
done
echo "== fuzz for $seconds s on $workers cores ($(ls "$seeds" | wc -l) seed models)"

log=build-fuzz/fuzz.log
rm -f build-fuzz/fuzz-*.log
rc=0
# The outer timeout only guards against the fuzzer itself hanging (loading seeds, a stuck
# leak check); -timeout=10 is what stops on a slow input. Each job is a whole fuzzer with its
# log in build-fuzz/fuzz-<job>.log; new inputs go to the shared corpus, which the jobs reload.
# (libFuzzer's -fork mode restarts its processes every few seconds: on 2 cores for 60 s it ran
# 393,000 inputs, half of what two whole fuzzers run.) The parent fails when a job does.
(cd build-fuzz && timeout $((seconds + 300)) fuzz/onnx_import_fuzz -jobs="$workers" -workers="$workers" -max_total_time="$seconds" \
  -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=artifacts/ corpus seeds) >"$log" 2>&1 || rc=$?

# The progress lines (NEW, REDUCE, pulse) and the recommended dictionary are noise here.
summary() { grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::number_of_executed_units|^Done ' build-fuzz/fuzz-*.log || true; }
if ((rc != 0)); then
  grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|RELOAD)|^".*" # Uses:' "$log" build-fuzz/fuzz-*.log | tail -n 150
  echo "== FUZZING FAILED (exit $rc); the failing input is the newest in build-fuzz/artifacts/:"
  ls -lt build-fuzz/artifacts/ | head -n 4
  echo "   replay it with: build-fuzz/fuzz/onnx_import_fuzz build-fuzz/artifacts/<file>"
  exit 1
fi
summary
echo "== fuzzing passed: build $((built - start)) s, fuzzing $((SECONDS - built)) s; full log in $log"
