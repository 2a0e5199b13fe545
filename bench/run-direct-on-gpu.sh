#!/usr/bin/env bash
# Issue #20 on the GPU machine in one device call: builds the `gpu` preset's GPU tests and the
# DIRECT benchmark, runs the DIRECT GPU tests (TESTS_REGEX, default "Direct") and, unless
# SKIP_BENCH is set, bench/direct_pet.cpp (EVENTS: comma-free list of event counts for the
# deposition rows, ITERATIONS). Output in $OUT.
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
TESTS_REGEX="${TESTS_REGEX:-Direct}"
mkdir -p "$OUT"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv || true
  nvcc --version | tail -n 2 | head -n 1
} 2>&1 | tee "$OUT/machine.txt"
cmake --preset gpu > "$OUT/build.log" 2>&1 &&
  cmake --build --preset gpu -j "$(nproc)" --target tomowb_test_cuda tomowb_test_pet tomowb-bench-direct \
    >> "$OUT/build.log" 2>&1 || { tail -n 60 "$OUT/build.log"; exit 1; }
status=0
if [ -z "${SKIP_TESTS:-}" ]; then
  build-gpu/tests/tomowb_test_cuda --gtest_filter="*$(echo "$TESTS_REGEX" | sed 's/|/*:*/g')*" \
    2>&1 | tee "$OUT/tests.log" | grep -E "measured|FAILED|OK \]|PASSED|Failure|Expected|Which|actual|error" | tail -n 80
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  build-gpu/tests/tomowb_test_pet 2>&1 | tee "$OUT/tests-pet.log" | grep -E "FAILED|PASSED|Failure" | tail -n 20
fi
if [ -z "${SKIP_BENCH:-}" ]; then
  build-gpu/bench/tomowb-bench-direct ${EVENTS:+--events $EVENTS} ${ITERATIONS:+--iterations $ITERATIONS} \
    --out "$OUT/bench-direct.md" 2>&1 | tee "$OUT/bench-direct.log" | tail -n 70
fi
exit $status
