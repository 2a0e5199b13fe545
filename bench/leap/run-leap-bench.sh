#!/usr/bin/env bash
# Runs our LEAP driver (built by bench/leap/build-leap.sh) on the issue #19 SF cases and writes
# $OUT/leap/{leap_sf_bench.csv, leap_sf_bench.md, leap_sf_checks.txt, run.log, machine.txt}.
# Usage on the GPU machine: bash bench/leap/build-leap.sh && bash bench/leap/run-leap-bench.sh [driver args]
# Driver args: --reps N (default 5), --cases ge_helical_1turn,ge_helical_8turns,flat_circular_720 (or none),
#   --no-adjoint, --small-adjoint (adjoint test on the 64^3 cases only)
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
here="$(cd "$(dirname "$0")" && pwd)"
work="${LEAP_BUILD_DIR:-/tmp/tomowb-leap}"
out="${OUT:-$PWD/gpu-out}/leap"
mkdir -p "$out"
{
  echo "== machine"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv || true
  nvcc --version | tail -n 2 | head -n 1
  echo "LEAP commit: $(cat "$here/LEAP_COMMIT" 2> /dev/null)"
  echo "command: bash bench/leap/run-leap-bench.sh $*"
  date -u +%FT%TZ
} 2>&1 | tee "$out/machine.txt"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$(nproc)}"
set -o pipefail
"$work/build/leap_sf_bench" --out "$out" "$@" 2>&1 | tee "$out/run.log"
status=$?
echo "run-leap-bench.sh: exit $status after ${SECONDS} s"
exit $status
