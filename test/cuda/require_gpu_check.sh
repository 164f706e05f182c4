#!/usr/bin/env bash
# AUTOGRAPH_REQUIRE_GPU=1 on the built CUDA tests: without a GPU a GPU test must fail, naming
# the setting and the reason; with one it must pass. Either way the program says which.
# Usage: require_gpu_check.sh CUDA_TESTS
set -uo pipefail
out=$(AUTOGRAPH_REQUIRE_GPU=1 "$1" --gtest_filter='CudaExtension.*' 2>&1)
rc=$?
if grep -q '^\[gpu\] no usable GPU' <<<"$out"; then
  if [ "$rc" -ne 0 ] && grep -q 'AUTOGRAPH_REQUIRE_GPU=1, but no usable GPU' <<<"$out"; then
    echo "no GPU, AUTOGRAPH_REQUIRE_GPU=1: the GPU test failed as it must"; exit 0
  fi
  echo "no GPU and AUTOGRAPH_REQUIRE_GPU=1, yet the GPU test did not fail naming the setting (exit $rc):"; echo "$out"; exit 1
fi
if grep -q '^\[gpu\] ' <<<"$out" && [ "$rc" -eq 0 ]; then echo "GPU present: the GPU test ran"; exit 0; fi
echo "the test program did not say which GPU it ran on, or failed (exit $rc):"; echo "$out"; exit 1
