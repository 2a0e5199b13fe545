#!/usr/bin/env bash
# One device call for issue #7 (GPU SIRT for ET): configure the `gpu` preset, build what the GPU
# projectors need (the CUDA tests, the projector tests, the SIRT benchmark, the CLI the tests
# call), run the new tests and the rest of the GPU-labelled tests, the benchmark in seed 004's
# Tables 1-3 layout, and, if time is left, ncu on the fast kernels and compute-sanitizer on the
# projector tests. Everything goes to $OUT (the device tool brings back at most 8 files):
#   machine.txt   build.log   ctest.log   bench-sirt-et.md   bench-sirt-et.log   ncu-et.txt
#   sanitizer-et.txt
# Each step has a time limit so the whole script stays within BUDGET_S (default 500 s).
# Usage on the GPU machine: bench/run-on-gpu-et.sh   (OUT defaults to ./gpu-out; TABLES picks the
# benchmark parts, default "sweep 1 2 3 big"; BENCH_ARGS adds options, e.g. --tunable K=V).
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
BUDGET_S="${BUDGET_S:-500}"
TABLES="${TABLES:-sweep 1 2 3 big}"
BENCH_ARGS="${BENCH_ARGS:-}"
mkdir -p "$OUT"
jobs="$(nproc)"
status=0
left() { echo $((BUDGET_S - SECONDS)); }
{
  echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv || true
  cmake --version | head -n 1; nvcc --version | tail -n 2 | head -n 1; nproc
} 2>&1 | tee "$OUT/machine.txt"

echo "== configure + build (gpu preset, the targets issue #7 needs)"
if ! { cmake --preset gpu &&
       cmake --build --preset gpu -j "$jobs" --target tomowb_test_cuda tomowb_test_projector \
         tomowb-bench-sirt-et tomowb-cli; } > "$OUT/build.log" 2>&1; then
  tail -n 60 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
fi
tail -n 2 "$OUT/build.log"
echo "build done after ${SECONDS} s"

echo "== tests: the new ones (GpuEt*, SingleAxisGeometry*)"
timeout 240 ctest --preset gpu -R "GpuEt|SingleAxisGeometry" --timeout 150 --output-on-failure \
  > "$OUT/ctest.log" 2>&1 || status=1
# The measured errors ("[ measured ]" lines) of the GPU tests, once more straight from gtest.
echo "== GpuEt* with their measured figures" >> "$OUT/ctest.log"
timeout 120 ./build-gpu/tests/tomowb_test_cuda --gtest_filter='GpuEt*' >> "$OUT/ctest.log" 2>&1 \
  || status=1
grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|Exception" "$OUT/ctest.log" | tail -n 25
echo "== the other GPU-labelled tests ($(left) s left)" | tee -a "$OUT/ctest.log"
if (( $(left) > 300 )); then
  timeout 150 ctest --preset gpu -L gpu -E "GpuEt" --timeout 120 --output-on-failure \
    >> "$OUT/ctest.log" 2>&1 || status=1
  tail -n 4 "$OUT/ctest.log"
else
  echo "skipped: time" | tee -a "$OUT/ctest.log"
fi
echo "tests done after ${SECONDS} s"

bench_s=$(( $(left) - 60 ))
echo "== benchmark: $TABLES (limit ${bench_s} s)"
if (( bench_s > 30 )); then
  # shellcheck disable=SC2086
  timeout --signal=TERM --kill-after=10 "$bench_s" ./build-gpu/bench/tomowb-bench-sirt-et \
    --tables $TABLES $BENCH_ARGS --out "$OUT/bench-sirt-et.md" 2> "$OUT/bench-sirt-et.log" \
    > /dev/null
  rc=$?
  (( rc == 124 )) && echo "benchmark stopped by its time limit: partial tables" \
    | tee -a "$OUT/bench-sirt-et.log"
  (( rc != 0 )) && status=1
  grep -E "^\| (\(|ours|ASTRA|[0-9])" "$OUT/bench-sirt-et.md" | cut -c1-150 | tail -n 45
else
  echo "skipped: no time left" | tee "$OUT/bench-sirt-et.log"
fi

echo "== ncu: fast kernels, 2048^2 x 180 views ($(left) s left)"
if command -v ncu > /dev/null && (( $(left) > 40 )); then
  # Table 1's et.fp.fast rows: launches 2-4 are the float2 row's timed ones, 5-7 the default's
  # set-up, warm-up and first timed launch.
  timeout $(( $(left) - 25 )) ncu --launch-skip 2 --launch-count 6 \
    --kernel-name regex:"sliceForwardFast" \
    --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis \
    ./build-gpu/bench/tomowb-bench-sirt-et --tables 1 --no-e2e > "$OUT/ncu-et.txt" 2>&1 \
    || echo "(ncu exit $?)" >> "$OUT/ncu-et.txt"
  grep -E "sliceForward|sliceBack|Duration|Compute \(SM\) Throughput|L1/TEX Hit|Achieved Occ" \
    "$OUT/ncu-et.txt" | head -n 30
else
  echo "skipped (ncu missing or no time left)" | tee "$OUT/ncu-et.txt"
fi

echo "== compute-sanitizer: projector tests ($(left) s left)"
if command -v compute-sanitizer > /dev/null && (( $(left) > 25 )); then
  timeout $(( $(left) - 10 )) compute-sanitizer --tool memcheck --print-limit 20 \
    ./build-gpu/tests/tomowb_test_cuda \
    --gtest_filter='GpuEtForward.*:GpuEtBack.*:GpuEtMatched.*:GpuEtSirt.EqualsTheSame*' \
    > "$OUT/sanitizer-et.txt" 2>&1 || echo "(sanitizer exit $?)" >> "$OUT/sanitizer-et.txt"
  grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid" "$OUT/sanitizer-et.txt" | head -n 12
else
  echo "skipped (no time left)" | tee "$OUT/sanitizer-et.txt"
fi
echo "all done after ${SECONDS} s"
exit $status
