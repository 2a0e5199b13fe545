#!/usr/bin/env bash
# One device call for issue #22 point 1's two-GPU speed-ups (nvidia-h100-x2), in one of two modes:
#   speedups (default)  builds the gpu preset's SIRT and FDK benchmarks, then
#     sirt-multi.md     SIRT for ET on two GPUs against one, whole calls (tomowb-bench-sirt-et
#                       --tables multi: 1024 x 256 x 1024 voxels, 61 views, 50 iterations)
#     fdk-huge-off.md   the FDK benchmark (512^3 and 1024^3, one and two GPUs, new and kept
#                       volume) with TOMOWB_HUGE_PAGES=off, then fdk.md as built
#   pool                HostMemory's pool of freed pinned blocks (HostMemory.h): builds the GPU
#                       and core tests and the FDK benchmark, runs the GPU tests that allocate and
#                       free pinned host memory (the pool's own, FDK, slab FDK and SIRT, ET SIRT)
#                       and the core host-memory tests with a GPU present (tests.log), then the
#                       FDK benchmark with TOMOWB_PINNED_POOL=off (fdk-pool-off.md: every run
#                       allocates, zeroes and pins its volume) and as built (fdk-pool.md)
# Each FDK run is cut at FDK_LIMIT_S seconds (default 150; the report keeps what was measured).
# Usage on the GPU machine: OUT=/tmp/o bash bench/run-two-gpu-speedups.sh [speedups|pool]
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
limit="${FDK_LIMIT_S:-150}"
mode="${1:-speedups}"
mkdir -p "$OUT"
status=0
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; } \
  > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
targets=(tomowb-bench-fdk-gpu tomowb-bench-sirt-et)
[ "$mode" = pool ] && targets=(tomowb-bench-fdk-gpu tomowb_test_cuda tomowb_test_core)
if ! { cmake --preset gpu -DTOMOWB_BENCH=ON &&
       cmake --build build-gpu -j "$(nproc)" --target "${targets[@]}"; } > "$OUT/build.log" 2>&1; then
  tail -n 40 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
fi
echo "built after ${SECONDS} s"
fdk() {  # NAME [ENV=VALUE]
  local name="$1"; shift
  env "$@" timeout --signal=TERM --kill-after=10 "$limit" build-gpu/bench/tomowb-bench-fdk-gpu \
    --sizes 512 1024 --variants fast --e2e-variants fast --phantom-sizes 1 --repeats 5 \
    --no-cross-check --out "$OUT/$name.md" > /dev/null 2> "$OUT/$name.log" || status=1
  grep -E "^\| (512|1024)³ \||^\| fdk.bp.fast" "$OUT/$name.md" | cut -c1-240 | head -n 12
  echo "$name done after ${SECONDS} s"
}
if [ "$mode" = pool ]; then
  {
    timeout 240 build-gpu/tests/tomowb_test_cuda \
      --gtest_filter='GpuHostMemory*:GpuFdk*:GpuSlab*:GpuEtSirt*:GpuDevices*' 2>&1 |
      grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) |Failure|Expected|Which is|error|tests? ran"
    timeout 120 build-gpu/tests/tomowb_test_core \
      --gtest_filter='PinnedBlockPool*:HostMemory*:MemoryBudget*:Volume*:ProjectionStack*' 2>&1 |
      grep -E "^\[ +(FAILED|PASSED) |Failure|tests? ran"
  } > "$OUT/tests.log" 2>&1
  grep -q "FAILED" "$OUT/tests.log" && status=1
  grep -E "PASSED|FAILED" "$OUT/tests.log" | tail -n 12
  echo "tests done after ${SECONDS} s"
  fdk fdk-pool-off TOMOWB_PINNED_POOL=off
  fdk fdk-pool TOMOWB_PINNED_POOL=on
  exit "$status"
fi
timeout 200 build-gpu/bench/tomowb-bench-sirt-et --tables multi --out "$OUT/sirt-multi.md" \
  > /dev/null 2> "$OUT/sirt-multi.log" || status=1
sed -n '/^### SIRT on two/,$p' "$OUT/sirt-multi.md"
echo "SIRT done after ${SECONDS} s"
fdk fdk-huge-off TOMOWB_HUGE_PAGES=off
fdk fdk TOMOWB_HUGE_PAGES=on
exit "$status"
