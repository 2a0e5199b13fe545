#!/usr/bin/env bash
# Measures the GPU kernels' tunables on the demo (512^3, 496 views) through the CLI, which prints
# the backprojection GUPS from CUDA events: tex-multi's K, and the voxel pairs per thread of the
# software z-mirror kernels. Used to pick the defaults (issue #6); output in $OUT/sweep.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
cli=./build-gpu/cli/tomowb-cli
size="${1:-512}"
run() {
  local label="$1"; shift
  local line
  line=$("$cli" demo --size "$size" --views 496 --device gpu -o /tmp/sweep "$@" 2>&1 | grep -m1 "^FDK")
  echo "$label: $line" | tee -a "$OUT/sweep.txt"
}
for k in 1 2 4 8 16 32; do run "tex-multi K=$k" --variant fdk.bp.tex-multi --tunable "K=$k"; done
for v in soft-mirror soft-mirror-half slab; do
  for z in 8 16; do run "$v z=$z" --variant "fdk.bp.$v" --tunable "z-per-thread=$z"; done
done
