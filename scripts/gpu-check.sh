#!/usr/bin/env bash
# The GPU check for a machine that has a GPU but no build tools of ours (a lent GPU machine):
# runs prebuilt binaries from BIN (default .gpu/bin), with the libraries in BIN/../lib first
# on the library path and the machine's own CUDA libraries (cuBLAS(Lt), cuDNN) after them.
#
#   BIN=.gpu/bin OUT=/tmp/gpu-check bash scripts/gpu-check.sh [model,model,...]
#
# 1. the CUDA tests with AUTOGRAPH_REQUIRE_GPU=1 (every GPU test must run, none may skip);
# 2. PyTorch's eager and CUDA-graph baselines (benchmark/pytorch_baselines.py) where torch is;
# 3. gpu_bench: each model's sequential, Nimble, IOS, TASO+Nimble and AutoGraph configurations
#    measured on the CUDA graph runtime, and the simulator's ranking of them (--calibrate).
# Each step has its own time limit (seconds: TESTS_S, TORCH_S, BENCH_S), so one that hangs
# cannot take the others' time; logs and results go to OUT. BENCH_ARGS: more gpu_bench options
# (e.g. "--ios-max-states 300 --ios-max-group-kernels 2").
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-.gpu/bin}
out=${OUT:-/tmp/gpu-check}
models=${1:-squeezenet1_1,resnet50,inception_v3,nasnet_a_mobile}
mkdir -p "$out"
started=$(date +%s)
say() { echo "[gpu-check +$(($(date +%s) - started))s] $*"; }

source scripts/gpu-env.sh || exit 1

say "CUDA tests (AUTOGRAPH_REQUIRE_GPU=1)"
AUTOGRAPH_REQUIRE_GPU=1 timeout "${TESTS_S:-150}" "$bin/cuda_tests" --gtest_output="json:$out/cuda_tests.json" >"$out/cuda_tests.log" 2>&1
say "cuda_tests exit $?"
grep -E '^\[  FAILED  \]|^\[  PASSED  \]|^\[  SKIPPED \]|^\[gpu\]' "$out/cuda_tests.log" | sort | uniq -c | sort -rn | head -40

pytorch=()
if timeout "${TORCH_S:-90}" python3 benchmark/pytorch_baselines.py --models "$models" --modes eager,cuda_graph --repeats 5 \
    --out "$out/pytorch.json" >"$out/pytorch.log" 2>&1; then
  pytorch=(--pytorch "$out/pytorch.json")
fi
say "PyTorch baselines: ${pytorch[*]:-failed, see pytorch.log}"

say "gpu_bench $models"
timeout "${BENCH_S:-300}" "$bin/gpu_bench" --out "$out/gpu" --models "$models" --repeats 5 --search-seconds "${SEARCH_S:-10}" \
  --calibrate --label "${LABEL:-autograph}" ${BENCH_ARGS:-} "${pytorch[@]}" 2>&1 | tee "$out/gpu_bench.log" | grep -v '^\[gpu_bench\]   profiled'
say "gpu_bench exit ${PIPESTATUS[0]}"
cat "$out/gpu.md" 2>/dev/null
