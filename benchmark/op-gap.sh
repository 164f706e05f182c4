#!/usr/bin/env bash
# Where our time and onnxruntime's go, per operator class, on the same models and the same ONNX
# (issue 14: a miss against onnxruntime reported with its reason measured, not guessed), and
# the most any stream schedule of our kernels could gain over one stream on this machine.
#
#   BUILD_DIR=build bash benchmark/op-gap.sh [inception_v3,resnet50,...] > op-gap.md
#
# Needs the benchmarks built (cpu_op_profile) and benchmark/peers' npm install (onnxruntime's
# library, which benchmark/peers/ort_profile.py calls directly: the Node binding cannot profile).
# Progress goes to stderr, the markdown table to stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
models=${1:-inception_v3,nasnet_a_mobile,randwire_ws,resnet50,bert}
build=${BUILD_DIR:-build}
runs=${RUNS:-30}
[[ -x $build/benchmark/cpu_op_profile ]] || { echo "op-gap: $build/benchmark/cpu_op_profile is not built (cmake -DAUTOGRAPH_BUILD_BENCHMARKS=ON)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$build/benchmark/cpu_op_profile" --models "$models" --out "$dir/ours.json" --onnx-dir "$dir" >&2
for m in ${models//,/ }; do
  mapfile -t inputs < <(python3 -c 'import json, sys
for m in json.load(open(sys.argv[1]))["models"]:
    if m["model"] == sys.argv[2]:
        for i in m["inputs"]: print("--input"); print(i["name"] + "=" + i["shape"])' "$dir/ours.json" "$m")
  echo "== onnxruntime, $m" >&2
  python3 benchmark/peers/ort_profile.py "$dir/$m.onnx" "${inputs[@]}" --threads "$(nproc)" --runs "$runs" --out "$dir/$m.ort.json" >/dev/null
done
echo "# Per operator class: our kernels and onnxruntime's, $(date -u +%Y-%m-%dT%H:%MZ), code $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo
echo "**Measured** by benchmark/op-gap.sh ($runs onnxruntime runs). Ours: each kernel alone, medians of its runs"
echo "(cpu/profiler.hpp); onnxruntime's: its profiler's kernel times inside whole runs, medians over the runs."
echo
python3 benchmark/peers/op_gap.py "$dir/ours.json" "$dir"/*.ort.json
