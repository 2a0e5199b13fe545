#!/usr/bin/env bash
# One device call for issue #22 point 1 (GPU FDK on one and several GPUs of one node): builds the
# gpu preset's GPU tests and the FDK benchmark, runs the GPU FDK tests (the two-GPU ones run when
# two GPUs are visible) and the plan tests, then the benchmark's kernel-only, end-to-end and
# one-against-two-GPU tables at 512^3 and 1024^3 with fdk.bp.fast. Results in $OUT:
#   machine.txt  build.log  tests.log  bench-fdk-gpu.md  bench-fdk-gpu.json  bench-fdk-gpu.log
# Usage on the GPU machine (nvidia-h100-x2 for the two-GPU rows): bench/run-multi-gpu-fdk.sh
# PIPELINE_AB=1: the benchmark runs twice in the call, first with TOMOWB_FDK_PIPELINE=uniform (the
# pipeline's ends as before: equal chunks, the slab downloaded after its last chunk, cuFFT plans
# per run; bench-fdk-gpu-uniform.md), then as built.
# AB_ENV=NAME=VALUE: likewise first with that variable set (bench-fdk-gpu-ab.md); AB_ARGS: more
# options for both benchmark runs (e.g. --no-multi-gpu on one GPU).
# HOST_LEAD_AB=1: likewise first with TOMOWB_FDK_HOST_LEAD=4 (the device thread enqueues four
# chunks ahead instead of two; bench-fdk-gpu-lead4.md), then as built.
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
BUDGET_S="${BUDGET_S:-560}"
mkdir -p "$OUT"
status=0
{
  echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
  nvidia-smi topo -m 2>/dev/null | head -n 6 || true
  nproc; free -g | head -n 2
} 2>&1 | tee "$OUT/machine.txt"

echo "== build (gpu preset: tests of cuda and fdk, the FDK benchmark)"
if ! { cmake --preset gpu -DTOMOWB_BENCH=ON &&
       cmake --build build-gpu -j "$(nproc)" --target tomowb_test_cuda tomowb_test_fdk \
         tomowb_test_bench tomowb-bench-fdk-gpu; } > "$OUT/build.log" 2>&1; then
  tail -n 60 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
fi
echo "build done after ${SECONDS} s"

echo "== tests"
{
  timeout 60 build-gpu/tests/tomowb_test_fdk --gtest_filter='GpuFdkPlan.*:FdkMemoryEstimate.*:GpuFdkKernelTable.*' 2>&1 | tail -n 5
  timeout 30 build-gpu/tests/tomowb_test_bench --gtest_filter='BenchStages.*' 2>&1 | tail -n 3
  timeout 240 build-gpu/tests/tomowb_test_cuda --gtest_filter='GpuFdk*:GpuDevices.*' 2>&1 \
    | grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) |Failure|Expected|Which is|Actual|error|plan|tests? ran" \
    | head -n 120
} > "$OUT/tests.log" 2>&1
grep -qE "FAILED" "$OUT/tests.log" && status=1
grep -E "PASSED|FAILED" "$OUT/tests.log" | tail -n 12
echo "tests done after ${SECONDS} s"

if [[ "${PIPELINE_AB:-0}" == 1 ]]; then
  ab_s=$(( (BUDGET_S - SECONDS - 10) / 2 ))
  echo "== benchmark, TOMOWB_FDK_PIPELINE=uniform (limit ${ab_s} s)"
  TOMOWB_FDK_PIPELINE=uniform timeout --signal=TERM --kill-after=10 "$ab_s" \
    build-gpu/bench/tomowb-bench-fdk-gpu \
    --sizes 512 1024 --variants fast --e2e-variants fast --phantom-sizes 1 --repeats 5 \
    --no-cross-check --out "$OUT/bench-fdk-gpu-uniform.md" \
    2> "$OUT/bench-fdk-gpu-uniform.log" | tail -n 20
fi
if [[ -n "${AB_ENV:-}" ]]; then  # e.g. AB_ENV=TOMOWB_FDK_FFT=pow2: the benchmark first with it
  ab_s=$(( (BUDGET_S - SECONDS - 10) / 2 ))
  echo "== benchmark, ${AB_ENV} (limit ${ab_s} s)"
  env "${AB_ENV}" timeout --signal=TERM --kill-after=10 "$ab_s" \
    build-gpu/bench/tomowb-bench-fdk-gpu \
    --sizes 512 1024 --variants fast --e2e-variants fast --phantom-sizes 1 --repeats 5 \
    --no-cross-check ${AB_ARGS:-} --out "$OUT/bench-fdk-gpu-ab.md" \
    2> "$OUT/bench-fdk-gpu-ab.log" | tail -n 20
fi
if [[ "${HOST_LEAD_AB:-0}" == 1 ]]; then
  ab_s=$(( (BUDGET_S - SECONDS - 10) / 2 ))
  echo "== benchmark, TOMOWB_FDK_HOST_LEAD=4 (limit ${ab_s} s)"
  TOMOWB_FDK_HOST_LEAD=4 timeout --signal=TERM --kill-after=10 "$ab_s" \
    build-gpu/bench/tomowb-bench-fdk-gpu \
    --sizes 512 1024 --variants fast --e2e-variants fast --phantom-sizes 1 --repeats 5 \
    --no-cross-check --out "$OUT/bench-fdk-gpu-lead4.md" \
    2> "$OUT/bench-fdk-gpu-lead4.log" | tail -n 20
fi
bench_s=$(( BUDGET_S - SECONDS - 5 ))
echo "== benchmark (limit ${bench_s} s)"
if (( bench_s > 30 )); then
  timeout --signal=TERM --kill-after=10 "$bench_s" build-gpu/bench/tomowb-bench-fdk-gpu \
    --sizes 512 1024 --variants fast --e2e-variants fast --phantom-sizes 1 --repeats 5 \
    --no-cross-check ${AB_ARGS:-} --out "$OUT/bench-fdk-gpu.md" --json "$OUT/bench-fdk-gpu.json" \
    2> "$OUT/bench-fdk-gpu.log" | tail -n 40
  (( PIPESTATUS[0] != 0 )) && status=1
fi
echo "all done after ${SECONDS} s, status ${status}"
exit "$status"
