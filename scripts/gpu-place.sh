#!/usr/bin/env bash
# The GPU placement check for a lent GPU machine (issue 17's GPU side), from prebuilt binaries
# in BIN (default .gpu/bin: cuda_tests and gpu_place), as scripts/gpu-check.sh runs its own:
#
#   BIN=.gpu/bin OUT=/tmp/gpu-place bash scripts/gpu-place.sh [model,model,...]
#
# 1. the placement tests of cuda_tests with AUTOGRAPH_REQUIRE_GPU=1 (CudaPlaced*: zoo models
#    placed by the DP and by each single backend against the reference executor, FP32; the
#    measured placement path once), limit TESTS_S seconds (default 200);
# 2. gpu_place over the models (default the four below), limit BENCH_S (default 300), the
#    cost database in OUT; extra gpu_place options in PLACE_ARGS (e.g. "--autograph 10").
# Logs go to OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-.gpu/bin}
out=${OUT:-/tmp/gpu-place}
models=${1:-nasnet_a_mobile,inception_v3,resnet50,squeezenet1_1}
mkdir -p "$out"
started=$(date +%s)
say() { echo "[gpu-place +$(($(date +%s) - started))s] $*"; }

source scripts/gpu-env.sh || exit 1

say "placement tests (AUTOGRAPH_REQUIRE_GPU=1)"
AUTOGRAPH_REQUIRE_GPU=1 timeout "${TESTS_S:-200}" "$bin/cuda_tests" --gtest_filter='CudaPlaced*' >"$out/cuda_tests_placed.log" 2>&1
say "cuda_tests exit $?"
grep -E '^\[ +(OK|FAILED|PASSED|SKIPPED) +\]|^\[gpu\]|rel err' "$out/cuda_tests_placed.log" | head -60

say "gpu_place --models $models"
# shellcheck disable=SC2086
timeout "${BENCH_S:-300}" "$bin/gpu_place" --models "$models" --db "$out/gpu-placement-costs.json" ${PLACE_ARGS:-} 2>&1 | tee "$out/gpu_place.txt"
say "gpu_place exit ${PIPESTATUS[0]}"
