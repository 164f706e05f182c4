#!/usr/bin/env bash
# Installs the Debian packages autograph needs, only those that are missing; packages named as
# arguments are added to the list (scripts/fuzz.sh asks for clang-16 and libFuzzer this way).
set -euo pipefail
# ocl-icd-opencl-dev: Debian's oneDNN is built with its OpenCL GPU runtime, and its CMake
# package (dnnl-config.cmake) requires OpenCL; libdnnl-dev only recommends it, and recommends
# are not installed here. libxgboost-dev: the tuner's cost model (autograph::tuning).
packages=(
  cmake g++ make ninja-build
  libboost1.81-dev librange-v3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev libdnnl-dev ocl-icd-opencl-dev nlohmann-json3-dev libcli11-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata python3-onnx
  libxgboost-dev
  "$@"
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-deps: all packages present"
fi
