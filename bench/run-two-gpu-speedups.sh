#!/usr/bin/env bash
# One device call for issue #22 point 1's two-GPU speed-ups (nvidia-h100-x2): builds the gpu
# preset's SIRT and FDK benchmarks, then
#   sirt-multi.md   SIRT for ET on two GPUs against one, whole calls (tomowb-bench-sirt-et
#                   --tables multi: 1024 x 256 x 1024 voxels, 61 views, 50 iterations)
#   fdk-huge-off.md the FDK benchmark (512^3 and 1024^3, one and two GPUs, fresh and kept
#                   volume) with TOMOWB_HUGE_PAGES=off, then fdk.md as built (huge pages asked)
# Each FDK run is cut at FDK_LIMIT_S seconds (default 150; the report keeps what was measured).
# Usage on the GPU machine: OUT=/tmp/o bash bench/run-two-gpu-speedups.sh
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
limit="${FDK_LIMIT_S:-150}"
mkdir -p "$OUT"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nproc
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
if ! { cmake --preset gpu -DTOMOWB_BENCH=ON &&
       cmake --build build-gpu -j "$(nproc)" --target tomowb-bench-sirt-et tomowb-bench-fdk-gpu; } \
       > "$OUT/build.log" 2>&1; then
  tail -n 40 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
fi
echo "built after ${SECONDS} s"
timeout 200 build-gpu/bench/tomowb-bench-sirt-et --tables multi --out "$OUT/sirt-multi.md" \
  > /dev/null 2> "$OUT/sirt-multi.log"
sed -n '/^### SIRT on two/,$p' "$OUT/sirt-multi.md"
echo "SIRT done after ${SECONDS} s"
fdk() {  # NAME [ENV=VALUE]
  local name="$1"; shift
  env "$@" timeout --signal=TERM --kill-after=10 "$limit" build-gpu/bench/tomowb-bench-fdk-gpu \
    --sizes 512 1024 --variants fast --e2e-variants fast --phantom-sizes 1 --repeats 5 \
    --no-cross-check --out "$OUT/$name.md" > /dev/null 2> "$OUT/$name.log"
  grep -E "^\| (512|1024)³ \||speed-up|^\| fdk.bp.fast" "$OUT/$name.md" | cut -c1-240 | head -n 12
  echo "$name done after ${SECONDS} s"
}
fdk fdk-huge-off TOMOWB_HUGE_PAGES=off
fdk fdk TOMOWB_HUGE_PAGES=on
