#!/usr/bin/env bash
# The CPU benchmark in one command (benchmark/README-cpu.md):
#
#   bash benchmark/cpu-peers.sh [model,model,...]
#   bash benchmark/cpu-peers.sh --transformers [model,model,...]
#
# Installs what is missing (Debian python3-torch, python3-torchvision, python3-onnx; the npm
# package onnxruntime-node into benchmark/peers/node_modules from the committed lock file),
# builds cpu_bench (Release, build-cpu-bench/), then runs benchmark/peers/cpu_peers.py: per
# model our searches, then interleaved rounds of ours and the peers. AutoGraph + placement keeps
# the placement's cost database in the work folder (build-cpu-bench/cpu-peers/placement-costs.json):
# a second run measures no group the first one did. Writes
# benchmark/results/cpu-<date>.md and .json. Extra settings through the environment:
# ROUNDS, RUNS, WARMUP, SEARCH_S, BUDGET_MS, IOS_BUDGET_MS, IOS_MAX_STATES, IOS_R, TASO (a rule file; default the shared one
# when present), BUILD_DIR, JOBS (build jobs; default nproc), NOTE (a line for the results' header), SUFFIX
# (appended to the results' file name, e.g. -loaded), GROUP_BUDGET_MS (AutoGraph + placement: ms of runs per group measurement),
# CONFIGS (our configurations, comma-separated, e.g. sequential,nimble,ios,taso+nimble,autograph; default all of them).
# The peers are benchmark dependencies only: no test needs them.
#
# --transformers (issue 18, benchmark/README-cpu.md): ViT-B/16, ViT-L/16 and DETR-R50-E6 at
# [1,3,800,1333] by default; our configurations sequential, AutoGraph, and AutoGraph + DPOF
# fusion + tuned kernels (each model's fused attention tuned first by `autograph tune`, budget
# TUNE_BUDGET, the log kept in the work folder and reused); PyTorch runs its own modules of the
# architectures (torchvision's ViTs, peers/detr_torch.py). Defaults sized for a 2-core machine to
# finish in about 20 minutes: ROUNDS 3, RUNS 5, WARMUP 1, SEARCH_S 20, TUNE_BUDGET 64. Writes
# benchmark/results/cpu-transformers-<date>.md and .json.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
transformers=0
if [ "${1:-}" = "--transformers" ]; then transformers=1; shift; fi
if ((transformers)); then
  models=${1:-vit_b_16,vit_l_16,detr_r50_e6}
else
  models=${1:-inception_v3,nasnet_a_mobile,randwire_ws,resnet50,bert_encoder_8x1024,squeezenet1_1,resnext50_32x4d,vit_b_16}
fi
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
targets=(cpu_bench)
if ((transformers)); then
  # `autograph tune` writes the tuning logs: the tool must be in the build.
  grep -q '^AUTOGRAPH_BUILD_TOOLS:BOOL=ON' "$build/CMakeCache.txt" || cmake -DAUTOGRAPH_BUILD_TOOLS=ON "$build" >/dev/null
  targets+=(autograph_cli)
fi
cmake --build "$build" --target "${targets[@]}" -j"${JOBS:-$(nproc)}"

taso=${TASO-}
if [ -z "${TASO+set}" ] && [ -f "$root/../shared/data/taso/graph_subst.pb" ]; then taso=$root/../shared/data/taso/graph_subst.pb; fi
stamp=$(date -u +%Y-%m-%d)
mkdir -p "$root/benchmark/results" "$work"
if ((transformers)); then
  out=cpu-transformers-$stamp${SUFFIX:-}
  tool=$(find "$build" -name autograph -type f -perm -u+x -path '*tools*' | head -n 1)
  [ -n "$tool" ] || { echo "cpu-peers: no autograph tool in $build" >&2; exit 1; }
  for m in ${models//,/ }; do
    log=$work/tuning-$m.jsonl
    if [ -s "$log" ]; then
      echo "cpu-peers: $m: reusing the tuning log $log" >&2
    else
      echo "cpu-peers: $m: tuning its fused attention (budget ${TUNE_BUDGET:-64})" >&2
      GOMP_SPINCOUNT=2000 "$tool" tune --model "$m" --budget "${TUNE_BUDGET:-64}" --log "$log" | tee "$work/tuning-$m.txt"
    fi
  done
  /usr/bin/python3 "$root/benchmark/peers/cpu_peers.py" --cpu-bench "$build/benchmark/cpu_bench" --work "$work" \
    --out "$root/benchmark/results/$out" --models "$models" --rounds "${ROUNDS:-3}" --runs "${RUNS:-5}" --warmup "${WARMUP:-1}" \
    --search-s "${SEARCH_S:-20}" --budget-ms "${BUDGET_MS:-1000}" --configs sequential,autograph,autograph+dpof \
    --tuning-logs "$work/tuning-{model}.jsonl" --torch-native --taso "$taso" --note "${NOTE:-}"
else
  out=cpu-$stamp${SUFFIX:-}
  /usr/bin/python3 "$root/benchmark/peers/cpu_peers.py" --cpu-bench "$build/benchmark/cpu_bench" --work "$work" \
    --out "$root/benchmark/results/$out" --models "$models" --rounds "${ROUNDS:-5}" --runs "${RUNS:-12}" --warmup "${WARMUP:-2}" \
    --search-s "${SEARCH_S:-90}" --budget-ms "${BUDGET_MS:-1000}" --ios-budget-ms "${IOS_BUDGET_MS:-5}" --ios-max-states "${IOS_MAX_STATES:-300}" \
    --ios-max-group-kernels "${IOS_R:-2}" --group-budget-ms "${GROUP_BUDGET_MS:-20}" --taso "$taso" --note "${NOTE:-}" \
    ${CONFIGS:+--configs "$CONFIGS"}
fi
echo "cpu-peers: done in $(( ($(date +%s) - started) / 60 )) min $(( ($(date +%s) - started) % 60 )) s; results in benchmark/results/$out.md" >&2
