#!/usr/bin/env bash
# `autograph place` over the whole zoo (issue 17: placement never slower than the best single
# backend on any zoo model), one table:
#
#   bash benchmark/place-zoo.sh [model,model,...]
#
# Runs every zoo model the CPU sweeps run (the zoo's entries without skip_in_sweeps:
# models/zoo.hpp) at a size that keeps a model's run near a minute on a 2-core machine, all
# with one fresh cost database, and writes benchmark/results/place-zoo-<date>.md: per model the
# best single backend (chosen by measurement) and, for the op-level DP, the graph-level search
# and AutoGraph + placement, what each kept against it and the challenger's measured ratio
# (* = faster beyond noise; a search is kept only then). The models left out are listed with
# why. Extra settings through the environment: AUTOGRAPH (the tool; default build/tools/autograph),
# GRAPH_BUDGET (s, default 10), SEARCH_S (s, default 10), GROUP_BUDGET (ms, default 20),
# LIMIT_S (per model, default 300: a run past it is stopped and its row says so), NOTE (a
# line for the header, e.g. the machine's load), SUFFIX (appended to the file name).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tool=${AUTOGRAPH:-$root/build/tools/autograph}
graph_budget=${GRAPH_BUDGET:-10}
search_s=${SEARCH_S:-10}
group_budget=${GROUP_BUDGET:-20}
limit_s=${LIMIT_S:-300}
[ -x "$tool" ] || { echo "place-zoo: no tool at $tool (build autograph_cli, or set AUTOGRAPH)" >&2; exit 1; }

# model and its size options: 64 px for the CNNs (Inception-v3's smallest input is 75), 32 px
# for the ViT encoders (4 patches and the class token: at 64 px ViT-B took 199 s and SETR 291 s
# on the loaded VM, mostly the interleaved comparisons of 50 runs), DETR's short side 64 (its
# long side follows; 128 took 134 s), BERT, the BERT encoder and RNNTC-SRU at their benchmark
# shapes except the encoder's batch (1 sequence of 64 tokens, not 16).
declare -A size=(
  [inception_v3]="--resolution 75" [resnet34]="--resolution 64" [resnet50]="--resolution 64"
  [resnext50_32x4d]="--resolution 64" [nasnet_a_large]="--resolution 64" [nasnet_a_mobile]="--resolution 64"
  [rnntc_sru]="" [bert]="" [bert_encoder_8x1024]="--batch 1" [squeezenet1_1]="--resolution 64"
  [randwire_ws]="--resolution 64" [vit_b_16]="--resolution 32" [detr_r50_e3]="--resolution 64"
  [setr_naive_base]="--resolution 32"
)
# The zoo's entries the sweeps skip (models/zoo.hpp says why), left out here for the same reason.
declare -A skipped=(
  [vit_l_16]="over 100 M parameters" [vit_h_14]="over 100 M parameters" [setr_naive]="over 100 M parameters"
  [setr_pup]="over 100 M parameters" [detr_r50_e6]="detr_r50_e3 with more encoder layers"
  [detr_r50_e12]="detr_r50_e3 with more encoder layers"
  [squeezenet_ios]="squeezenet1_1's operators with a bypass Add, no operator the run models lack"
  [rnntc_metaflow]="rnntc_sru's operators over 20 steps, no operator the run models lack"
  [inception_v3_last_block]="a part of inception_v3"
  [inception_v3_ios]="inception_v3 as IOS builds it, no operator the run models lack"
)
order=(squeezenet1_1 resnet34 resnet50 resnext50_32x4d inception_v3 nasnet_a_mobile nasnet_a_large randwire_ws
       rnntc_sru bert bert_encoder_8x1024 vit_b_16 detr_r50_e3 setr_naive_base)
# Every zoo model must be run or skipped with a reason: a model added to the zoo fails here.
for m in $("$tool" models --json | python3 -c 'import json, sys; print(" ".join(e["name"] for e in json.load(sys.stdin)))'); do
  [ -n "${size[$m]+x}" ] || [ -n "${skipped[$m]+x}" ] || { echo "place-zoo: zoo model $m is neither run nor skipped here" >&2; exit 1; }
done
if [ -n "${1:-}" ]; then IFS=, read -r -a order <<<"$1"; fi
# Every name is checked before the first model runs: a misspelt last name must not cost the run.
for m in "${order[@]}"; do
  [ -n "${size[$m]+x}" ] || { echo "place-zoo: $m is not one of the models this script runs (${!size[*]})" >&2; exit 1; }
done

day=$(date -u +%Y-%m-%d)
out=$root/benchmark/results/place-zoo-$day${SUFFIX:-}.md
work=$(mktemp -d)
db=$work/costs.json
log=$work/place.log
started=$(date -u +%H:%M)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
code=$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- include src tools || echo "+uncommitted changes")
rows=()
for m in "${order[@]}"; do
  echo "place-zoo: $m ${size[$m]}" >&2
  t0=$(date +%s)
  set +e
  # shellcheck disable=SC2086
  timeout "$limit_s" "$tool" place --model "$m" ${size[$m]} --db "$db" --graph-budget "$graph_budget" --search-time "$search_s" \
    --group-budget "$group_budget" >"$work/$m.out" 2>"$work/$m.err"
  rc=$?
  set -e
  t=$(($(date +%s) - t0))
  { echo "./autograph place --model $m ${size[$m]} --db costs.json --graph-budget $graph_budget --search-time $search_s --group-budget $group_budget"
    cat "$work/$m.out"; } >>"$log"
  row=$(grep '^  zoo row: ' "$work/$m.out" | sed 's/^  zoo row: //' || true)
  if [ "$rc" -eq 0 ] && [ -n "$row" ]; then
    rows+=("${row% |} | $t |")
  elif [ "$rc" -eq 124 ]; then
    rows+=("| $m | ${size[$m]:-default} | stopped after $limit_s s (LIMIT_S) | | | | | $t |")
  else
    rows+=("| $m | ${size[$m]:-default} | failed (exit $rc): $(tail -1 "$work/$m.err" | tr '|' '/') | | | | | $t |")
  fi
done

{
  echo "# \`autograph place\` over the zoo, $day $started-$(date -u +%H:%M) UTC"
  echo
  echo "**Measured** by benchmark/place-zoo.sh on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
  echo "code $code; load average before the run: $load_before, after it: $(cut -d' ' -f1-3 /proc/loadavg)."
  [ -n "${NOTE:-}" ] && echo "${NOTE}"
  echo "One fresh cost database for all models, --graph-budget $graph_budget --search-time $search_s --group-budget $group_budget."
  echo
  echo "Each search challenges the best single backend (itself chosen by measurement: oneDNN alone holds the place"
  echo "unless BLAS or our kernels, each with oneDNN for the rest, measure faster beyond noise) and is kept only"
  echo "when faster beyond noise (interleaved runs, runtime/noise.hpp; placement/measured_choice.hpp). A cell"
  echo "says what was kept (\"best single\" or the search's result) and, in parentheses, the challenger's measured"
  echo "ratio against the best single backend, or against the holder named (* = faster beyond noise); \"same"
  echo "placement\": the search arrived at the holder's placement, which is not measured again; \"same placement"
  echo "as X\" or \"= X's placement\": at single backend X's, which lost the choice of the best single backend"
  echo "(its gain is X's, not placement's). \"rechecked\": a kept search result's second comparison, with oneDNN alone,"
  echo "after all searches (the log's \"measured, interleaved with oneDNN alone\"); where it does not confirm the"
  echo "choice's ratio (no *), that gain is unconfirmed. A row that stopped at LIMIT_S has no verdict."
  echo
  echo "| model | size | best single backend | op-level | graph-level | AutoGraph + placement | search s: op-level / graph-level / AutoGraph | run s |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Left out (as in the zoo's CPU sweeps): $(for m in "${!skipped[@]}"; do printf '%s (%s); ' "$m" "${skipped[$m]}"; done | sed 's/; $//')."
  echo
  echo '```'
  cat "$log"
  echo '```'
} >"$out"
echo "place-zoo: wrote $out" >&2
