#!/usr/bin/env bash
# How much of the CUDA runtime still calls cuDNN's deprecated legacy API (issue 16, defect 9):
#   bash scripts/cudnn-deprecations.sh [BUILD_DIR]    (default build; a Ninja build)
# cuDNN 9 marks its legacy functions and types CUDNN_DEPRECATED, which expands to nothing unless
# CUDNN_WARN_DEPRECATED is defined. This recompiles, syntax only, each source of the CUDA
# runtime that names cuDNN with its exact command from BUILD_DIR plus -DCUDNN_WARN_DEPRECATED
# -Wdeprecated-declarations -Wno-error=deprecated-declarations, and prints the number of
# deprecation warnings per file and per symbol. A report, not a gate: it exits 0 whatever the
# count (and when the build has no CUDA targets); the normal build never defines the macro.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
if [[ ! -f $build/build.ninja ]]; then
  echo "cudnn-deprecations: no Ninja build in '$build'; configure it first (scripts/test.sh does)" >&2
  exit 0
fi
sources=$(grep -l 'cudnn' src/cuda/*.cpp 2>/dev/null)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
total=0
for src in $sources; do
  object="CMakeFiles/autograph_cuda_host.dir/$src.o"
  cmd=$(ninja -C "$build" -t commands "$object" 2>/dev/null | tail -n 1)
  if [[ -z $cmd || $cmd != *" -c "* ]]; then
    echo "cudnn-deprecations: '$build' has no CUDA runtime ($object not a target): nothing to count"
    exit 0
  fi
  # The object's command, syntax only, writing nothing (no object, no dependency file).
  cmd=${cmd/ -o $object / -o /dev/null }
  cmd=$(sed -E 's/ -MD / /; s/ -MT [^ ]+ / /; s/ -MF [^ ]+ / /' <<< "$cmd")
  (cd "$build" && LC_ALL=C eval "$cmd -fsyntax-only -DCUDNN_WARN_DEPRECATED -Wdeprecated-declarations -Wno-error=deprecated-declarations") \
    > /dev/null 2> "$log"
  status=$?
  count=$(grep -c 'Wdeprecated-declarations' "$log")
  total=$((total + count))
  printf '  %-28s %3d\n' "$src" "$count"
  # 'cudnnStatus_t cudnnSetStream(cudnnHandle_t, CUstream_st*)' -> cudnnSetStream; a type stays itself.
  grep -o "warning: '[^']*' is deprecated" "$log" | sed -E "s/warning: '([^'(]*)(\(.*)?' is deprecated/\1/; s/.* //" >> "$log.symbols"
  if [[ $status -ne 0 ]]; then
    echo "cudnn-deprecations: $src did not compile with the warnings on (not counted as a failure):"
    grep -m 5 'error' "$log"
  fi
done
symbols=0
if [[ -s $log.symbols ]]; then symbols=$(sort -u "$log.symbols" | wc -l); fi
echo "cuDNN legacy API: $total deprecation warnings, $symbols deprecated symbols, in the CUDA runtime's sources; by symbol:"
if [[ -s $log.symbols ]]; then sort "$log.symbols" | uniq -c | sort -rn | sed 's/^/  /'; fi
rm -f "$log.symbols"
exit 0
