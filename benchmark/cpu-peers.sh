#!/usr/bin/env bash
# The CPU benchmark in one command (benchmark/README-cpu.md):
#
#   bash benchmark/cpu-peers.sh [model,model,...]
#
# Installs what is missing (Debian python3-torch, python3-torchvision, python3-onnx; the npm
# package onnxruntime-node into benchmark/peers/node_modules from the committed lock file),
# builds cpu_bench (Release, build-cpu-bench/), then runs benchmark/peers/cpu_peers.py: per
# model our searches, then interleaved rounds of ours and the peers. Writes
# benchmark/results/cpu-<date>.md and .json. Extra settings through the environment:
# ROUNDS, RUNS, SEARCH_S, BUDGET_MS, IOS_BUDGET_MS, IOS_MAX_STATES, IOS_R, TASO, BUILD_DIR (a rule file; default the shared one
# when present). The peers are benchmark dependencies only: no test needs them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
models=${1:-inception_v3,nasnet_a_mobile,randwire_ws,resnet50,bert_encoder_8x1024,squeezenet1_1,resnext50_32x4d,vit_b_16}
build=${BUILD_DIR:-$root/build-cpu-bench}  # an already configured build dir is reused as it is
work=$build/cpu-peers
started=$(date +%s)

missing=()
/usr/bin/python3 -c 'import torch' 2>/dev/null || missing+=(python3-torch)
/usr/bin/python3 -c 'import torchvision' 2>/dev/null || missing+=(python3-torchvision)
/usr/bin/python3 -c 'import onnx' 2>/dev/null || missing+=(python3-onnx)
if ((${#missing[@]})); then
  echo "cpu-peers: installing ${missing[*]} (Debian)" >&2
  sudo=$([ "$(id -u)" -eq 0 ] && echo || echo sudo)
  $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi
if [ ! -d "$root/benchmark/peers/node_modules/onnxruntime-node" ]; then
  echo "cpu-peers: npm ci in benchmark/peers (onnxruntime-node)" >&2
  (cd "$root/benchmark/peers" && npm ci --no-audit --no-fund)
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
  launcher=$(command -v ccache || true)
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DAUTOGRAPH_CUDA=OFF -DAUTOGRAPH_BUILD_BENCHMARKS=ON \
    -DAUTOGRAPH_BUILD_TESTS=OFF -DAUTOGRAPH_BUILD_EXAMPLES=OFF -DAUTOGRAPH_BUILD_TOOLS=OFF ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher} >/dev/null
fi
cmake --build "$build" --target cpu_bench -j"$(nproc)"

taso=${TASO-}
if [ -z "${TASO+set}" ] && [ -f "$root/../shared/data/taso/graph_subst.pb" ]; then taso=$root/../shared/data/taso/graph_subst.pb; fi
stamp=$(date -u +%Y-%m-%d)
mkdir -p "$root/benchmark/results"
/usr/bin/python3 "$root/benchmark/peers/cpu_peers.py" --cpu-bench "$build/benchmark/cpu_bench" --work "$work" \
  --out "$root/benchmark/results/cpu-$stamp" --models "$models" --rounds "${ROUNDS:-5}" --runs "${RUNS:-12}" \
  --search-s "${SEARCH_S:-30}" --budget-ms "${BUDGET_MS:-1000}" --ios-budget-ms "${IOS_BUDGET_MS:-5}" --ios-max-states "${IOS_MAX_STATES:-300}" \
  --ios-max-group-kernels "${IOS_R:-2}" --taso "$taso"
echo "cpu-peers: done in $(( ($(date +%s) - started) / 60 )) min $(( ($(date +%s) - started) % 60 )) s; results in benchmark/results/cpu-$stamp.md" >&2
