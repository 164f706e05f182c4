#!/usr/bin/env bash
# Fails when a build's output holds a compiler or linker warning, and prints each one:
#   bash scripts/check-no-warnings.sh [--build DIR] LOG...
# CI's Release pass compiles in command 1's folder with command 1's flags (CMake's defaults,
# no -Werror), so that the objects command 1 compiled are not compiled a second time with other
# flags; a warning fails CI here instead of through -Werror. The formats matched: GCC and Clang
# ("file:line:col: warning:"), the driver and the linker ("cc1plus: warning:", "/usr/bin/ld:
# warning:") and nvcc ("file.cu(12): warning #186-D:", "nvcc warning :"). What the programs
# themselves print is not matched: none of it starts with "<path>: warning".
# With --build DIR (the Ninja folder LOG came from) the outputs whose commands warned are
# deleted: unlike -Werror, a warning leaves its object behind, and a rerun that found it up to
# date would pass without compiling it again. Ninja prints a command's output after its status
# line ("[12/101] Building CXX object <output>"), so a warning belongs to the line before it.
set -uo pipefail
build=
if [[ ${1:-} == --build ]]; then build=$2; shift 2; fi
[[ $# -ge 1 ]] || { echo "usage: $0 [--build DIR] LOG..." >&2; exit 2; }
for log in "$@"; do [[ -r $log ]] || { echo "check-no-warnings: cannot read $log" >&2; exit 2; }; done
pattern='^[^ ]+(:[0-9]+(:[0-9]+)?|\([0-9]+\))?: warning( #[0-9A-Za-z-]+)?:|^nvcc warning'
found=$(grep -E -h -- "$pattern" "$@")
if [[ -z $found ]]; then
  echo "== no compiler or linker warnings in the build"
  exit 0
fi
echo "== $(wc -l <<<"$found") compiler or linker warning(s) in the build; CI treats them as errors:"
echo "$found"
if [[ -n $build ]]; then
  outputs=$(awk -v pattern="$pattern" '/^\[[0-9]+\/[0-9]+\] / {output = $NF} $0 ~ pattern && output != "" {print output}' "$@" | sort -u)
  for output in $outputs; do
    rm -f -- "$build/$output" && echo "   (deleted $build/$output, compiled again on the next run)"
  done
fi
exit 1
