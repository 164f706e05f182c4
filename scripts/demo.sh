#!/usr/bin/env bash
# README command 1: install what is missing, build, and run the main job on a built-in model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# CMake's default Release flags, as a user builds; never -Werror (CI adds it in its own pass).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DAUTOGRAPH_WERROR=OFF -DAUTOGRAPH_BUILD_TESTS=OFF -DAUTOGRAPH_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build --target autograph_cli -j "$(nproc)"
if [ $# -eq 0 ]; then set -- optimize --model inception_v3; fi
./build/tools/autograph models
echo
./build/tools/autograph "$@"
