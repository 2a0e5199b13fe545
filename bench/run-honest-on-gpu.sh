#!/usr/bin/env bash
# One device call on one H100 (issue #17 point 6, "honest benchmarks"): configure and build the
# `gpu` preset (only the targets needed), run the GPU tests and the benchmark-support tests, then
# the three benchmark programs at modest sizes, each row the min / median / max of 5 timed runs
# after a warm-up, with the fraction of the hardware limit (reference/gpu-limits-h100.md), the
# error on zero-mean random data and on the positive Shepp-Logan line integrals, end-to-end
# columns that add up, and peer figures only in tables headed "cited". About 6 minutes
# (BUDGET_S, default 390 s, the limit of the last step); each step has a time limit and the benchmarks write their tables
# as each part ends, so a time-out keeps what was measured. Files in $OUT (8):
#   machine.txt     devices, clocks and temperature before and after the benchmarks
#   build.log       configure + build
#   tests.log       tomowb_test_cuda (every GPU test, verbose) and tomowb_test_bench
#   bench-fdk-gpu.md / .json   GPU FDK: kernel only, headline, cited peers, end to end,
#                   the three-way cross-check (why tables differ for one kernel)
#   bench-fdk-bp-cpu.md        CPU backprojection on the machine's cores
#   bench-sirt-et.md           GPU SIRT for ET, seed 004 Tables 1-3 (seed and ASTRA cited)
#   bench.log       the benchmarks' progress lines (stderr)
# Usage on the GPU machine: bench/run-honest-on-gpu.sh   (OUT defaults to ./gpu-out)
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
BUDGET_S="${BUDGET_S:-390}"
mkdir -p "$OUT"
jobs="$(nproc)"
status=0
left() { echo $((BUDGET_S - SECONDS)); }
gpu_state() {
  # Read-only queries: the card's settings are left as found.
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,pstate,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
    --format=csv 2>&1 || true
}
{
  echo "== machine ($(date -u '+%Y-%m-%d %H:%M UTC'))"; gpu_state
  cmake --version | head -n 1; nvcc --version | tail -n 2 | head -n 1; echo "host CPUs: $jobs"
  git log -1 --format='commit %H %s' 2>/dev/null || true
} 2>&1 | tee "$OUT/machine.txt"

echo "== configure + build (gpu preset, the targets this run needs)"
if ! { cmake --preset gpu &&
       cmake --build --preset gpu -j "$jobs" --target tomowb_test_cuda tomowb_test_bench \
         tomowb-bench-fdk-gpu tomowb-bench-fdk-bp tomowb-bench-sirt-et tomowb-cli; } \
     > "$OUT/build.log" 2>&1; then
  tail -n 60 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
fi
tail -n 2 "$OUT/build.log"
echo "build done after ${SECONDS} s"

echo "== tests: every GPU test (tomowb_test_cuda), then tomowb_test_bench"
timeout 150 ./build-gpu/tests/tomowb_test_cuda > "$OUT/tests.log" 2>&1 || status=1
timeout 60 ./build-gpu/tests/tomowb_test_bench >> "$OUT/tests.log" 2>&1 || status=1
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran|FAILED TEST" "$OUT/tests.log" | tail -n 20
echo "tests done after ${SECONDS} s"

bin=./build-gpu/bench
: > "$OUT/bench.log"

# The GPU FDK benchmark gets about half of what is left, the SIRT benchmark the rest less a
# margin for the summary.
fdk_s=$(( ($(left) - 25) * 55 / 100 ))
echo "== GPU FDK: 256^3 and 512^3, every variant; end to end; cross-check (limit ${fdk_s} s)"
if (( fdk_s > 40 )); then
  timeout --signal=TERM --kill-after=10 "$fdk_s" "$bin/tomowb-bench-fdk-gpu" \
    --sizes 256 512 --repeats 5 --phantom-sizes 256 \
    --e2e-variants fast mirror-float2 soft-mirror soft \
    --cross-check-size 512 --cross-check-variants soft soft-mirror fast \
    --out "$OUT/bench-fdk-gpu.md" --json "$OUT/bench-fdk-gpu.json" \
    2>> "$OUT/bench.log" > /dev/null
  rc=$?
  (( rc == 124 )) && echo "GPU FDK benchmark stopped by its time limit: partial tables" \
    | tee -a "$OUT/bench.log"
  (( rc != 0 )) && status=1
else
  echo "skipped: no time left" | tee -a "$OUT/bench.log"
fi
echo "GPU FDK done after ${SECONDS} s"

sirt_s=$(( $(left) - 25 ))
echo "== GPU SIRT for ET: Tables 1, 2 (512², 2048²), 3 (limit ${sirt_s} s)"
if (( sirt_s > 40 )); then
  timeout --signal=TERM --kill-after=10 "$sirt_s" "$bin/tomowb-bench-sirt-et" \
    --tables 1 2 3 --sizes 512 2048 --repeats 5 --e2e-iterations 2 10 \
    --out "$OUT/bench-sirt-et.md" 2>> "$OUT/bench.log" > /dev/null
  rc=$?
  (( rc == 124 )) && echo "SIRT benchmark stopped by its time limit: partial tables" \
    | tee -a "$OUT/bench.log"
  (( rc != 0 )) && status=1
else
  echo "skipped: no time left" | tee -a "$OUT/bench.log"
fi

echo "== CPU backprojection on this machine's cores (128^3, 5 runs; $(left) s left)"
if (( $(left) > 15 )); then
  timeout $(( $(left) - 5 )) "$bin/tomowb-bench-fdk-bp" --size 128 --threads "$jobs" \
    --repeats 5 --out "$OUT/bench-fdk-bp-cpu.md" 2>> "$OUT/bench.log" | tail -n 2 || status=1
else
  echo "skipped: no time left" | tee -a "$OUT/bench.log"
fi

{ echo "== after the benchmarks ($(date -u '+%H:%M UTC'))"; gpu_state; } >> "$OUT/machine.txt"

# What the reply shows: the headline, the end-to-end and cross-check rows, SIRT's Table 1.
echo "== summary"
if [[ -f "$OUT/bench-fdk-gpu.md" ]]; then
  sed -n '/^\*\*Headline/,/^$/p;/^- fastest/p' "$OUT/bench-fdk-gpu.md" | cut -c1-400
  echo "-- kernel only (variant | volume | ms min/median/max | GUPS | of ceiling | err random"
  echo "   | err Shepp-Logan)"
  sed -n '/^### Kernel only/,/^\*\*Headline/p' "$OUT/bench-fdk-gpu.md" | grep -E "^\| fdk" \
    | cut -d'|' -f2,4,6,8,11,12,13 | head -n 30
  echo "-- end to end (wall min/median/max | alloc | filter | bp | download | rest | upload)"
  sed -n '/^### End to end/,/^### Why/p' "$OUT/bench-fdk-gpu.md" | grep -E "^\| fdk" \
    | cut -d'|' -f2,4,6-12 | head -n 10
  echo "-- cross-check"
  grep -E "^\| (RabbitCT-like|QA sweep)" "$OUT/bench-fdk-gpu.md" | cut -d'|' -f2,3,6-10
fi
if [[ -f "$OUT/bench-sirt-et.md" ]]; then
  echo "-- SIRT Table 1"
  grep -E "^\| \((a|b|c|d)\)|^\| ours" "$OUT/bench-sirt-et.md" | cut -d'|' -f2,4,6,7,8,10,11 | head -n 8
fi
grep -E "failed|stopped" "$OUT/bench.log" | head -n 10
echo "all done after ${SECONDS} s (exit $status)"
exit $status
