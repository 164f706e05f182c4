#!/usr/bin/env bash
# The GPU benchmark in one command: builds gpu_bench (Release, CUDA on), runs the PyTorch
# baselines when PyTorch is installed, then every autograph configuration on the CUDA graph
# runtime; writes benchmark/results/gpu-<date>.{md,json} (and the PyTorch JSON beside them).
#
#   scripts/gpu-bench.sh                      # every model of the zoo
#   scripts/gpu-bench.sh --models resnet50,bert --search-seconds 30 --calibrate
#
# Extra arguments go to gpu_bench (see benchmark/gpu_bench.cpp). BUILD_DIR overrides the
# build directory (default build-gpu); PYTHON the interpreter for the baselines.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-gpu}
python=${PYTHON:-python3}

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-bench: no NVIDIA GPU visible (nvidia-smi); the benchmark needs one" >&2
  exit 1
fi

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DAUTOGRAPH_CUDA=ON \
  -DAUTOGRAPH_BUILD_TESTS=OFF -DAUTOGRAPH_BUILD_EXAMPLES=OFF -DAUTOGRAPH_BUILD_TOOLS=OFF >/dev/null
cmake --build "$build" --target gpu_bench -j "$(nproc)"

mkdir -p benchmark/results
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
out=benchmark/results/gpu-$stamp
label="autograph $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo +local)"

# Pass the same --models to the baselines when given.
models=()
for ((i = 1; i <= $#; i++)); do
  if [[ "${!i}" == "--models" ]]; then
    j=$((i + 1))
    models=(--models "${!j}")
  fi
done

pytorch=()
if "$python" -c "import torch" 2>/dev/null; then
  if "$python" benchmark/pytorch_baselines.py --out "$out-pytorch.json" "${models[@]}" >/dev/null; then
    pytorch=(--pytorch "$out-pytorch.json")
  else
    echo "gpu-bench: the PyTorch baselines failed; see $out-pytorch.json" >&2
  fi
else
  echo "gpu-bench: PyTorch is not installed; the table has no PyTorch columns" >&2
fi

"$build/gpu_bench" --out "$out" --label "$label" "${pytorch[@]}" "$@"
