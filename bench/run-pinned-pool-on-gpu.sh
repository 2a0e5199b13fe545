#!/usr/bin/env bash
# One device call for HostMemory's pool of freed pinned blocks (issue #22 point 1; HostMemory.h):
# builds the gpu preset's GPU and core tests and the FDK benchmark, runs the GPU tests that
# allocate and free pinned host memory (the pool's own, FDK, slab FDK and SIRT, ET SIRT) and the
# core host-memory tests with a GPU present, then the FDK benchmark (512^3 and 1024^3, one and two
# GPUs) first with TOMOWB_PINNED_POOL=off (every run allocates, zeroes and pins its volume) and
# then as built (a run's volume comes from the pool after the first). Results in $OUT:
#   machine.txt build.log tests.log fdk-pool-off.md fdk-pool.md (+ .log)
# Usage on the GPU machine: OUT=/tmp/o bash bench/run-pinned-pool-on-gpu.sh
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
limit="${FDK_LIMIT_S:-150}"
mkdir -p "$OUT"
status=0
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; } \
  > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
if ! { cmake --preset gpu -DTOMOWB_BENCH=ON &&
       cmake --build build-gpu -j "$(nproc)" --target tomowb_test_cuda tomowb_test_core \
         tomowb-bench-fdk-gpu; } > "$OUT/build.log" 2>&1; then
  tail -n 40 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
fi
echo "built after ${SECONDS} s"
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
fdk() {  # NAME [ENV=VALUE]
  local name="$1"; shift
  env "$@" timeout --signal=TERM --kill-after=10 "$limit" build-gpu/bench/tomowb-bench-fdk-gpu \
    --sizes 512 1024 --variants fast --e2e-variants fast --phantom-sizes 1 --repeats 5 \
    --no-cross-check --out "$OUT/$name.md" > /dev/null 2> "$OUT/$name.log" || status=1
  grep -E "^\| fdk.bp.fast \| (512|1024)³" "$OUT/$name.md" | cut -c1-130
  echo "$name done after ${SECONDS} s"
}
fdk fdk-pool-off TOMOWB_PINNED_POOL=off
fdk fdk-pool TOMOWB_PINNED_POOL=on
exit "$status"
