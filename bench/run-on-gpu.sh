#!/usr/bin/env bash
# One device call: configure and build the `gpu` preset, run every test (the GPU ones too) and
# the benchmarks, and leave logs and result tables in $OUT (the device tool brings them back).
# Usage on the GPU machine: bench/run-on-gpu.sh   (OUT defaults to ./gpu-out)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
mkdir -p "$OUT"
jobs="$(nproc)"
status=0
{
  echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
  cmake --version | head -n 1; nvcc --version | tail -n 2 | head -n 1; nproc
} 2>&1 | tee "$OUT/machine.txt"

echo "== configure + build (gpu preset)"
if ! { cmake --preset gpu && cmake --build --preset gpu -j "$jobs"; } > "$OUT/build.log" 2>&1; then
  tail -n 60 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
fi
tail -n 3 "$OUT/build.log"

echo "== tests"
ctest --preset gpu -j 4 --timeout 900 --output-on-failure > "$OUT/ctest.log" 2>&1 || status=1
grep -E "tests passed|tests failed|Failed|\*\*\*" "$OUT/ctest.log" | tail -n 20
ctest --preset gpu -L gpu --output-on-failure -V > "$OUT/ctest-gpu.log" 2>&1 || status=1
grep -E "^\[|Passed|Failed|Skipped" "$OUT/ctest-gpu.log" | grep -E "OK|FAILED|SKIPPED|Passed|Failed" | tail -n 20

echo "== devices"
./build-gpu/cli/tomowb-cli variants | tee "$OUT/variants.txt"

echo "== benchmark: CPU backprojection on the GPU machine's cores"
./build-gpu/bench/tomowb-bench-fdk-bp --size 128 256 --threads 1 "$jobs" --repeats 2 \
  --out "$OUT/bench-fdk-bp-cpu.md" | tail -n 6
exit $status
