#!/usr/bin/env bash
# CGLS on the GPU's matched pair, resident (the volume and projections stay on the GPU) against
# the same pair on host arrays (forced by a memory limit below what residency needs, so every
# projection uploads and downloads), and SIRT's fused GPU path for scale. A tilt series from the
# ET demo (WIDTH columns x ROWS rows, +-60 degrees in 2-degree steps), ITER iterations, RUNS
# timed runs after a warm-up; wall time of the whole reconstruction from the CLI's JSON summary.
# Usage on the GPU machine after a gpu-preset build: bench/run-cgls-resident-on-gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
WIDTH="${WIDTH:-1024}" ROWS="${ROWS:-32}" ITER="${ITER:-20}" RUNS="${RUNS:-5}"
cli=build-gpu/cli/tomowb-cli
work=$(mktemp -d)
mkdir -p "$OUT"
"$cli" -q --no-record demo-et --width "$WIDTH" --rows "$ROWS" --thickness $((WIDTH / 4)) \
  --iterations 1 -o "$work/et" > /dev/null
tilts="$work/et/tilts.mrc"
stat() { sort -g | awk '{a[NR]=$1} END {printf "%.3f | %.3f | %.3f", a[1], a[int((NR+1)/2)], a[NR]}'; }
row() {  # label, then the recon arguments
  local label="$1"; shift
  "$cli" -q --no-record recon "$@" -i "$tilts" -o "$work/v.mrc" --iterations "$ITER" > /dev/null
  for _ in $(seq "$RUNS"); do
    "$cli" --json --no-record recon "$@" -i "$tilts" -o "$work/v.mrc" --iterations "$ITER" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["iterative"]["totalSeconds"])'
  done > "$work/times"
  local device
  device=$("$cli" --json --no-record recon "$@" -i "$tilts" -o "$work/v.mrc" --iterations 1 |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["iterative"]["device"])')
  echo "| $label | $(stat < "$work/times") | $device |"
}
{
  echo "# CGLS on the GPU pair, resident against host arrays ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1); tilt series ${WIDTH} x ${ROWS} x 61 views,"
  echo "tomogram ${WIDTH} x $((WIDTH / 4)) x ${ROWS}; ${ITER} iterations; seconds of the whole"
  echo "reconstruction (CLI JSON totalSeconds), min | median | max of ${RUNS} runs after a warm-up."
  echo
  echo "| run | min s | median s | max s | device |"
  echo "|---|---|---|---|---|"
  row "CGLS, et.fp.matched + et.bp.matched, resident" cgls --device gpu --matched
  row "CGLS, the same pair on host arrays" cgls --device gpu --matched --gpu-mem-limit 64M
  row "SIRT, the same pair, fused GPU path" sirt --device gpu --matched
} | tee "$OUT/cgls-resident.md"
rm -rf "$work"
