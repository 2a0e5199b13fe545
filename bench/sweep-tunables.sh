#!/usr/bin/env bash
# Measures the GPU kernels' tunables on the demo (512^3, 496 views) through the CLI, which prints
# the backprojection GUPS from CUDA events: tex-multi's K, and the voxel pairs per thread of the
# software z-mirror kernels. Used to pick the defaults (issue #6). Each setting: one warm-up run,
# then RUNS (default 5) timed runs; the line gives min / median / max GUPS. Output in
# $OUT/sweep.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
RUNS="${RUNS:-5}"
cli=./build-gpu/cli/tomowb-cli
size="${1:-512}"
mkdir -p "$OUT"
run() {
  local label="$1"; shift
  local values=() line gups
  for ((r = 0; r <= RUNS; ++r)); do
    line=$("$cli" demo --size "$size" --views 496 --device gpu -o /tmp/sweep "$@" 2>&1 | grep -m1 "^FDK")
    gups=$(sed -n 's/.*: \([0-9.]*\) GUPS.*/\1/p' <<< "$line")
    (( r > 0 )) && [[ -n "$gups" ]] && values+=("$gups")
  done
  if (( ${#values[@]} == 0 )); then
    echo "$label: no figure ($line)" | tee -a "$OUT/sweep.txt"
    return
  fi
  printf '%s\n' "${values[@]}" | sort -g | awk -v label="$label" '
    { v[NR] = $1 }
    END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
          printf "%s: backprojection GUPS min %s / median %.2f / max %s over %d runs\n",
                 label, v[1], m, v[NR], NR }' | tee -a "$OUT/sweep.txt"
}
for k in 1 2 4 8 16 32; do run "tex-multi K=$k" --variant fdk.bp.tex-multi --tunable "K=$k"; done
for v in soft-mirror soft-mirror-half slab; do
  for z in 8 16; do run "$v z=$z" --variant "fdk.bp.$v" --tunable "z-per-thread=$z"; done
done
