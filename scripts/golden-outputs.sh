#!/usr/bin/env bash
# Fingerprints of what the program computes, to prove a refactoring changed nothing (issue #18,
# point 7): runs the demo, the ET demo and a fixed set of reconstructions (every CPU variant, and
# with --gpu every GPU variant) with a given tomowb-cli, and prints one line per output file:
# "<case>/<file> <sha256>". Run records, summaries and logs carry times and are left out; the data
# files (volumes, projections, residual tables) are hashed.
#
#   scripts/golden-outputs.sh [--gpu] CLI > manifest.txt
#   scripts/golden-outputs.sh [--gpu] --compare manifest.txt CLI   # exit 1 on any difference
#
# CLI is the tomowb-cli to run (e.g. build/cli/tomowb-cli). The cases are small (seconds each).
set -euo pipefail

gpu=0
compare=""
while [ $# -gt 1 ]; do
  case "$1" in
    --gpu) gpu=1; shift ;;
    --compare) compare="$2"; shift 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 [--gpu] [--compare MANIFEST] PATH/TO/tomowb-cli" >&2
  exit 2
fi
cli="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
work="$(mktemp -d "${TMPDIR:-/tmp}/tomowb-golden.XXXXXX")"
trap 'rm -rf "$work"' EXIT
manifest="$work/manifest.txt"
: > "$manifest"

# Runs one case in its own folder: run NAME ARGS...
run() {
  local name="$1"
  shift
  mkdir -p "$work/$name"
  if ! (cd "$work/$name" && "$cli" -q --no-record "$@" > log.txt 2>&1); then
    echo "golden-outputs: case '$name' failed: $*" >&2
    sed 's/^/    /' "$work/$name/log.txt" >&2
    echo "$name/FAILED -" >> "$manifest"
    return 0
  fi
  (cd "$work" && find "$name" -type f \
    \( -name '*.raw' -o -name '*.mha' -o -name '*.mrc' -o -name '*.npy' -o -name '*.pgm' \
       -o -name '*.tlt' \) -print0 |
    sort -z | xargs -0 -r sha256sum | awk '{print $2, $1}') >> "$manifest"
  # Tables: every column but times ("seconds").
  local table
  while IFS= read -r -d '' table; do
    echo "$table $(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) keep[i] = ($i != "seconds") }
      { line = ""; for (i = 1; i <= NF; ++i) if (keep[i]) line = line $i ","; print line }' \
      "$work/$table" | sha256sum | cut -d' ' -f1)" >> "$manifest"
  done < <(cd "$work" && find "$name" -type f -name '*.csv' ! -name 'telemetry*' -print0 | sort -z)
}

# FDK: the demo with each CPU backprojector (and each GPU one with --gpu).
run demo demo --size 64 --views 90 -o out
run demo-f64 demo --size 48 --views 60 --variant fdk.bp.cpu-f64 -o out
run phantom-short phantom --scan short --cols 96 --rows 64 --views 80 --pitch-mm 1.2 --seed 1 \
  -o p.json
run phantom-offset phantom --cols 64 --rows 48 --views 90 --offset-u-mm 20 --pitch-mm 1.5 \
  --seed 1 -o p.json
run fdk-short recon fdk -i "$work/phantom-short/p.json" -o v.mhd --size 48
run fdk-offset recon fdk -i "$work/phantom-offset/p.json" -o v.mhd --size 48 --filter shepp-logan
run demo-hann demo --size 48 --views 72 --filter hann --cutoff 0.8 --fov-mask -o out
# ET: the demo (WBP + SIRT on the CPU), then every iterative algorithm on its tilt series.
run demo-et demo-et --width 96 --rows 6 --thickness 24 --iterations 8 -o out
tilts="$work/demo-et/out/tilts.mrc"
for alg in sirt os-sirt sart; do
  run "$alg-voxel" recon "$alg" -i "$tilts" -o v.mrc --iterations 4 --residuals r.csv
  run "$alg-matched" recon "$alg" -i "$tilts" -o v.mrc --iterations 4 --matched --nonneg \
    --residuals r.csv
done
run wbp recon wbp -i "$tilts" -o v.mrc

if [ "$gpu" = 1 ]; then
  for v in $("$cli" variants | awk '/\[GPU\]/ && $1 ~ /^fdk\.bp\./ {print $1}'); do
    run "gpu-$v" demo --size 64 --views 90 --variant "$v" -o out
    run "gpu-short-$v" recon fdk -i "$work/phantom-short/p.json" -o v.mhd --size 48 --variant "$v"
  done
  run gpu-demo-et demo-et --width 96 --rows 6 --thickness 24 --iterations 8 --device gpu -o out
  for pair in "et.fp.fast et.bp.fast" "et.fp.matched et.bp.matched" "et.fp.unordered et.bp.voxel" \
              "et.fp.strips et.bp.voxel" "et.fp.strips-angles et.bp.voxel" \
              "et.fp.segments et.bp.voxel"; do
    set -- $pair
    run "gpu-sirt-$1-$2" recon sirt -i "$tilts" -o v.mrc --iterations 4 --fp "$1" --bp "$2" \
      --residuals r.csv
  done
  run gpu-os-sirt recon os-sirt -i "$tilts" -o v.mrc --iterations 4 --device gpu
  run gpu-sart recon sart -i "$tilts" -o v.mrc --iterations 2 --device gpu
fi

if [ -n "$compare" ]; then
  if diff -u "$compare" "$manifest"; then
    echo "golden-outputs: all $(wc -l < "$manifest") outputs bit-identical to $compare" >&2
  else
    echo "golden-outputs: outputs differ from $compare (lines above: - expected, + now)" >&2
    exit 1
  fi
else
  cat "$manifest"
fi
