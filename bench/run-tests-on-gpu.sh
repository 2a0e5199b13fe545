#!/usr/bin/env bash
# One device call for correctness only: configure and build the `gpu` preset, run every GPU test
# (ctest label "gpu", verbose) and the CPU tests named by TESTS_REGEX, and leave the logs in $OUT
# (machine.txt, build.log, ctest-gpu.log, ctest-cpu.log). Benchmarks are separate scripts.
# Usage on the GPU machine: bench/run-tests-on-gpu.sh   (OUT defaults to ./gpu-out)
#   TESTS_REGEX='Fdk|Iterative' bench/run-tests-on-gpu.sh
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
TESTS_REGEX="${TESTS_REGEX:-Fdk|Iterative|Weights}"
mkdir -p "$OUT"
root="$PWD"
source bench/static-libtiff-flags.sh  # TIFF where build-carry/libtiff was carried here
jobs="$(nproc)"
status=0
{
  echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
  cmake --version | head -n 1; nvcc --version | tail -n 2 | head -n 1; nproc
} 2>&1 | tee "$OUT/machine.txt"

echo "== configure + build (gpu preset, tests only)"
if ! { cmake --preset gpu -DTOMOWB_BENCH=OFF "${tiffFlags[@]}" &&
       cmake --build --preset gpu -j "$jobs"; } > "$OUT/build.log" 2>&1; then
  tail -n 60 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
fi
echo "build done after ${SECONDS} s"

echo "== GPU tests"
timeout 300 ctest --preset gpu -L gpu --timeout 240 --output-on-failure -V \
  > "$OUT/ctest-gpu.log" 2>&1 || status=1
grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|tests passed|tests failed" "$OUT/ctest-gpu.log" | tail -n 60
echo "GPU tests done after ${SECONDS} s"

echo "== CPU tests matching '$TESTS_REGEX'"
timeout 200 ctest --preset gpu -LE gpu -R "$TESTS_REGEX" -j "$jobs" --timeout 180 \
  --output-on-failure > "$OUT/ctest-cpu.log" 2>&1 || status=1
grep -E "tests passed|tests failed|Failed|\*\*\*" "$OUT/ctest-cpu.log" | tail -n 20
echo "all done after ${SECONDS} s, status $status"
exit "$status"
