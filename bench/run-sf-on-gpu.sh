#!/usr/bin/env bash
# Issue #19 on the GPU machine in one device call: builds the `gpu` preset's test and SF benchmark
# targets, runs the GPU tests named by TESTS_REGEX (default: the SF GPU tests and the pair tests),
# then, unless SKIP_BENCH is set, the SF benchmark (CASES: comma-separated case names, default all;
# GATHER_CASES, TT_CASES, PWLS_CASES, ADJOINT_CASES: the cases those rows run on)
# and, with LEAP set, the LEAP driver on the same cases (bench/leap/). Output in $OUT.
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
TESTS_REGEX="${TESTS_REGEX:-GpuSeparableFootprint|GpuProjectorPair}"
mkdir -p "$OUT"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv || true
  nvcc --version | tail -n 2 | head -n 1
} 2>&1 | tee "$OUT/machine.txt"
cmake --preset gpu > "$OUT/build.log" 2>&1 &&
  cmake --build --preset gpu -j "$(nproc)" --target tomowb_test_cuda tomowb-bench-sf \
    >> "$OUT/build.log" 2>&1 || { tail -n 60 "$OUT/build.log"; exit 1; }
status=0
if [ -z "${SKIP_TESTS:-}" ]; then
  build-gpu/tests/tomowb_test_cuda --gtest_filter="*$(echo "$TESTS_REGEX" | sed 's/|/*:*/g')*" \
    2>&1 | tee "$OUT/tests.log" | grep -E "measured|FAILED|OK \]|PASSED|Failure|Expected|Which|actual|error" | tail -n 150
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [ -z "${SKIP_BENCH:-}" ]; then
  build-gpu/bench/tomowb-bench-sf ${CASES:+--cases "$CASES"} ${GATHER_CASES:+--gather-cases "$GATHER_CASES"} \
    ${TT_CASES:+--tt-cases "$TT_CASES"} ${PWLS_CASES:+--pwls-cases "$PWLS_CASES"} ${ADJOINT_CASES:+--adjoint-cases "$ADJOINT_CASES"} --out "$OUT/bench-sf.md" 2>&1 |
    tee "$OUT/bench-sf.log" | tail -n 40
fi
if [ -n "${PROFILE:-}" ]; then
  # The first launches of the SF kernels on one case under Nsight Compute: speed of light,
  # occupancy, warp stall reasons and memory workload (fractions of the H100's peaks).
  ncu --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section LaunchStats \
    -k "regex:${PROFILE_KERNELS:-wuFessler|backGather}" -c "${PROFILE_LAUNCHES:-2}" \
    build-gpu/bench/tomowb-bench-sf --single --cases "${PROFILE_CASE:-ge_helical_1turn}" \
    --tt-cases none --gather-cases none > "$OUT/ncu.txt" 2>&1
  grep -vE "^==PROF==|^ +-+ *$" "$OUT/ncu.txt" | grep -E "Kernel|Duration|Throughput|Warp Cycles|Stall|Occupancy|Registers|Shared|Block Size|Achieved|Theoretical|Hit Rate|Bandwidth|Busy|Issue" | head -120
fi
if [ -n "${LEAP:-}" ]; then
  bash bench/leap/build-leap.sh > "$OUT/leap-build.log" 2>&1 && bash bench/leap/run-leap-bench.sh --small-adjoint 2>&1 | tail -n 40
fi
exit $status
