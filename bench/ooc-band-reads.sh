#!/usr/bin/env bash
# Out-of-core input reading (issue #22, point 2; docs/scale.md "Input"): one cone-beam scan
# (VIEWS views of COLS x ROWS, float32) written as our raw pair, .npy, MetaImage, MRC, a
# multi-page TIFF and a TIFF series (bench/stack_files.cpp), then an FDK of SIZE^3 from each:
# loaded whole (the raw pair, no slabs) and in slabs of SLAB slices that read a band of rows at a
# time. RUNS runs each: wall time, the run's own read / compute / write split, peak RSS, and the
# NRMSE against the whole-file run. Files sit in the page cache after the first run: the reads
# measure decoding and copying, not the disk. CPU only.
# Usage: bench/ooc-band-reads.sh [OUT.md]   (env: WORK, RUNS, VIEWS, COLS, ROWS, SIZE, SLAB)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${WORK:-/tmp/ooc-band-reads}
RUNS=${RUNS:-3}
VIEWS=${VIEWS:-360} COLS=${COLS:-768} ROWS=${ROWS:-512} SIZE=${SIZE:-256} SLAB=${SLAB:-32}
CLI=${CLI:-build/cli/tomowb-cli}
STACKS=${STACKS:-build/bench/tomowb-bench-stack-files}
out=${1:-}
rm -rf "$WORK"; mkdir -p "$WORK"
"$CLI" --no-record -q phantom --views "$VIEWS" --cols "$COLS" --rows "$ROWS" -o "$WORK/scan.json"
"$STACKS" "$WORK/scan.json" "$WORK"

run() {  # NAME INPUT [ARGS...]: RUNS runs, one table row
  local name=$1 input=$2; shift 2
  local walls=() rss=() split=""
  for i in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$CLI" --no-record --json recon fdk \
      -i "$WORK/$input" --size "$SIZE" -o "$WORK/$name.raw" "$@" > "$WORK/$name.summary"
    read -r wall kb < "$WORK/time.txt"
    walls+=("$wall"); rss+=("$((kb / 1024))")
    split=$(python3 -c "
import json; s=json.load(open('$WORK/$name.summary')).get('slabs')
print('-' if not s else '%.2f / %.2f / %.2f' % (s['readSeconds'], s['computeSeconds'], s['writeSeconds']))")
  done
  local nrmse="-"
  if [ "$name" != whole ]; then
    nrmse=$("$CLI" compare "$WORK/$name.raw" "$WORK/whole.raw" --no-ssim 2>/dev/null |
            awk '/^NRMSE/ {print $2}')
  fi
  local sorted median
  sorted=$(printf '%s\n' "${walls[@]}" | sort -g | tr '\n' ' ')
  median=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "| $name | $sorted| $median | $split | $(printf '%s\n' "${rss[@]}" | sort -g | tail -1) | $nrmse |"
}

{
  echo "FDK ${SIZE}^3 from ${VIEWS} views of ${COLS} x ${ROWS} (float32, $(du -h "$WORK/scan.raw" | cut -f1)), $(nproc) cores, ${RUNS} runs; slabs of ${SLAB} slices."
  echo "Read / compute / write: the last run's own split (slab runs). RSS: the largest of the runs."
  echo
  echo "| input | wall s (sorted) | median s | read / compute / write s | peak RSS MiB | NRMSE vs whole |"
  echo "|---|---|---|---|---|---|"
  run whole scan.json
  run raw-slabs scan.json --slab-slices "$SLAB"
  for f in stack.npy stack.mha stack.mrc stack.tif series; do
    run "${f//./-}-slabs" "$f" --geometry "$WORK/geometry.json" --layout views --slab-slices "$SLAB"
  done
} | if [ -n "$out" ]; then tee "$out"; else cat; fi
