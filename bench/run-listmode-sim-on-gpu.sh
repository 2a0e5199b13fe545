#!/usr/bin/env bash
# Issue #20, the GPU list-mode simulator (recon/pet/GpuListModeSimulator.h) in one device call:
# builds the `gpu` preset's tomowb_test_cuda and runs its GpuListModeSimulator tests (CPU vs GPU
# counts, point-source position and widths on both scanner layouts, a 5e6-prompt run kept on the
# device) and, unless SKIP_BENCH is set, the disabled measurement of the seed's count (4.3e8
# prompts of the NEMA-like phantom with attenuation on penn-labr3, events kept on the device).
# Output in $OUT (machine.txt, build.log, tests.log). Usage on the GPU machine:
#   bench/run-listmode-sim-on-gpu.sh            (OUT defaults to ./gpu-out)
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
mkdir -p "$OUT"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv || true
  nvcc --version | tail -n 2 | head -n 1
} 2>&1 | tee "$OUT/machine.txt"
cmake --preset gpu -DTOMOWB_BENCH=OFF > "$OUT/build.log" 2>&1 &&
  cmake --build --preset gpu -j "$(nproc)" --target tomowb_test_cuda >> "$OUT/build.log" 2>&1 ||
  { tail -n 60 "$OUT/build.log"; exit 1; }
echo "build done after ${SECONDS} s"
filter='GpuListModeSimulator.*'
extra=()
if [ -z "${SKIP_BENCH:-}" ]; then extra=(--gtest_also_run_disabled_tests); fi
build-gpu/tests/tomowb_test_cuda --gtest_filter="$filter" "${extra[@]}" 2>&1 |
  tee "$OUT/tests.log" | grep -E "figures|OK \]|FAILED|PASSED|Failure|Expected|Which|actual|error"
exit "${PIPESTATUS[0]}"
