#!/usr/bin/env bash
# One device call for issue #22, point 1 (fdk.bp.fast at least 1950 GUPS kernel-only at 512^3):
# the z-mirror kernel's launch shape (threads per block along x and y, voxel pairs per thread
# along z; TOMOWB_FDK_MIRROR_LAUNCH=BXxBYxZ, default 32x8x16) measured by tomowb-bench-fdk-gpu at
# 512^3 and 1024^3 (kernel only and end to end, 5 runs after a warm-up each), all in one call.
# First the GPU FDK tests with the default and with two other shapes (every shape must match
# the float64 reference). Results in $OUT: machine.txt build.log tests.log, and per shape
# bench-SHAPE.md; summary.txt holds the kernel-only rows.
# Usage on the GPU machine: bench/run-mirror-launch-on-gpu.sh [SHAPE...]
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
mkdir -p "$OUT"
shapes=("$@")
(( ${#shapes[@]} == 0 )) && shapes=(32x8x16 16x16x16 32x4x16 64x4x16 16x8x16 32x8x8 32x8x32 16x16x32 64x2x16)
status=0
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/machine.txt"
if ! { cmake --preset gpu -DTOMOWB_BENCH=ON &&
       cmake --build build-gpu -j "$(nproc)" --target tomowb_test_cuda tomowb-bench-fdk-gpu; } \
     > "$OUT/build.log" 2>&1; then
  tail -n 60 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
fi
echo "build done after ${SECONDS} s"
for shape in default 16x16x32 32x8x8; do
  echo "== GPU FDK tests, mirror launch $shape"
  if [ "$shape" = default ]; then unset TOMOWB_FDK_MIRROR_LAUNCH; else export TOMOWB_FDK_MIRROR_LAUNCH=$shape; fi
  timeout 240 build-gpu/tests/tomowb_test_cuda --gtest_filter='GpuFdk*' 2>&1 \
    | grep -E "^\[ +(OK|FAILED|PASSED) |Failure|Expected|Which is|Actual" | tail -n 40
done > "$OUT/tests.log" 2>&1
unset TOMOWB_FDK_MIRROR_LAUNCH
grep -qE "FAILED" "$OUT/tests.log" && status=1
grep -E "PASSED|FAILED|==" "$OUT/tests.log"
echo "tests done after ${SECONDS} s"
for shape in "${shapes[@]}"; do
  TOMOWB_FDK_MIRROR_LAUNCH=$shape timeout 120 build-gpu/bench/tomowb-bench-fdk-gpu \
    --sizes 512 1024 --variants fast --e2e-variants fast --phantom-sizes 1 --repeats 5 \
    --no-cross-check --no-multi-gpu --out "$OUT/bench-$shape.md" 2> "$OUT/bench-$shape.log" >/dev/null
  grep -E "^\| fdk.bp.fast" "$OUT/bench-$shape.md" | awk -F'|' -v s="$shape" '
    $2 ~ /ran / { printf "%-9s kernel only %-6s %-28s ms, %s GUPS\n", s, $4, $6, $8; next }
    { printf "%-9s end to end  %-6s wall %-22s s, backprojection in the pipeline %s GUPS\n", s, $4, $6, $18 }' \
    | tee -a "$OUT/summary.txt"
done
echo "all done after ${SECONDS} s, status ${status}"
exit "$status"
