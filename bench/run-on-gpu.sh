#!/usr/bin/env bash
# One device call: configure and build the `gpu` preset, run every test (the GPU ones too) and
# the benchmarks, and leave logs and result tables in $OUT (the device tool brings them back).
# The device tool allows 10 minutes a command and brings back at most 8 files, so each step has
# a time limit (the whole script stays within about 9 minutes, BUDGET_S) and the logs are few:
#   machine.txt (machine, devices, variants)   build.log   ctest.log (CPU tests, then GPU tests
#   verbose)   bench-fdk-bp-cpu.md   bench-fdk-gpu.md   bench-fdk-gpu.json   bench-fdk-gpu.log
#   ncu-fdk.txt
# Usage on the GPU machine: bench/run-on-gpu.sh   (OUT defaults to ./gpu-out)
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
BUDGET_S="${BUDGET_S:-540}"
mkdir -p "$OUT"
jobs="$(nproc)"
status=0
left() { echo $((BUDGET_S - SECONDS)); }
{
  echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
  cmake --version | head -n 1; nvcc --version | tail -n 2 | head -n 1; nproc
} 2>&1 | tee "$OUT/machine.txt"

echo "== configure + build (gpu preset)"
if ! { cmake --preset gpu && cmake --build --preset gpu -j "$jobs"; } > "$OUT/build.log" 2>&1; then
  tail -n 60 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
fi
tail -n 3 "$OUT/build.log"
echo "build done after ${SECONDS} s"

echo "== tests"
timeout 150 ctest --preset gpu -LE gpu -j 8 --timeout 120 --output-on-failure \
  > "$OUT/ctest.log" 2>&1 || status=1
grep -E "tests passed|tests failed|Failed|\*\*\*" "$OUT/ctest.log" | tail -n 20
echo "== GPU tests (verbose)" >> "$OUT/ctest.log"
timeout 150 ctest --preset gpu -L gpu --timeout 120 --output-on-failure -V \
  >> "$OUT/ctest.log" 2>&1 || status=1
grep -E "^\[|Passed|Failed|Skipped" "$OUT/ctest.log" | grep -E "OK|FAILED|SKIPPED|Passed|Failed" \
  | tail -n 20
echo "tests done after ${SECONDS} s"

echo "== devices" | tee -a "$OUT/machine.txt"
./build-gpu/cli/tomowb-cli variants 2>&1 | tee -a "$OUT/machine.txt"

echo "== benchmark: CPU backprojection on the GPU machine's cores (short)"
timeout 60 ./build-gpu/bench/tomowb-bench-fdk-bp --size 128 --threads "$jobs" --repeats 5 \
  --out "$OUT/bench-fdk-bp-cpu.md" | tail -n 3

# Leave ~50 s for ncu when there is room; the benchmark writes its tables as each part ends, so
# a time-out keeps what it measured.
bench_s=$(( $(left) - 50 ))
echo "== benchmark: GPU FDK, Table I layout (limit ${bench_s} s)"
if (( bench_s > 30 )); then
  timeout --signal=TERM --kill-after=10 "$bench_s" ./build-gpu/bench/tomowb-bench-fdk-gpu \
    --sizes 256 512 1024 --out "$OUT/bench-fdk-gpu.md" --json "$OUT/bench-fdk-gpu.json" \
    2> "$OUT/bench-fdk-gpu.log" | tail -n 60
  rc=${PIPESTATUS[0]}
  (( rc == 124 )) && echo "benchmark stopped by its time limit: partial tables" \
    | tee -a "$OUT/bench-fdk-gpu.log"
  (( rc != 0 )) && status=1
else
  echo "skipped: no time left" | tee "$OUT/bench-fdk-gpu.log"
fi

echo "== ncu: fast kernels at 512^3 ($(left) s left)"
if command -v ncu > /dev/null && (( $(left) > 25 )); then
  for variant in fast mirror-float2 soft-mirror layered16; do
    (( $(left) > 20 )) || { echo "(no time left for $variant)" >> "$OUT/ncu-fdk.txt"; break; }
    echo "== ncu: fdk.bp.$variant, L = 512" >> "$OUT/ncu-fdk.txt"
    # Backprojection kernels only (the upload's conversion kernels are named to*Kernel); the
    # harness's first launch, its warm-up, is as good as any other.
    timeout $(( $(left) - 5 )) ncu --launch-count 1 \
      --kernel-name regex:"naive|texture|slab|layered|mirrorHalf2|soft|fast|[Bb]ackproject" \
      --section SpeedOfLight --section Occupancy \
      ./build-gpu/bench/tomowb-bench-fdk-gpu --kernel-only --sizes 512 --variants "$variant" \
      --repeats 5 --samples 16 >> "$OUT/ncu-fdk.txt" 2>&1 || echo "(ncu exit $?)" >> "$OUT/ncu-fdk.txt"
  done
  grep -E "^== ncu|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy" \
    "$OUT/ncu-fdk.txt" | head -n 40
else
  echo "skipped (ncu missing or no time left)" | tee "$OUT/ncu-fdk.txt"
fi
echo "all done after ${SECONDS} s"
exit $status
