#!/usr/bin/env bash
# Runs our parallelproj driver (built by bench/parallelproj/build-parallelproj.sh) on issue #20's
# list-mode case and writes three files to $OUT/parallelproj (the device's return limit is 8 files
# per call): pp_lm_bench.md (the tables), pp_lm_summary.json (every number, for our bench) and
# run.log (machine, command, the driver's output). The images (float32 + JSON; 4 MB each at
# 144x144x48) go to $PP_IMAGES (default /tmp/tomowb-pp/images), where our bench reads them in the
# same device call to measure contrast recovery and noise with PetImageQuality.
#
# Usage on the GPU machine:
#   bash bench/parallelproj/build-parallelproj.sh
#   bash bench/parallelproj/run-parallelproj-bench.sh --listmode FILE [driver args]
# Driver args (pp_lm_bench --help): --events 1e7,1e8,4.3e8 (default) --reps 5 --iterations 10
#   --save 1,2,5,10 --subsets 1 --grid 144,144,48 --voxel 4 --randoms uniform --attenuation analytic
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
dir="${PP_DIR:-$repo/build-parallelproj}"
out="${OUT:-$PWD/gpu-out}/parallelproj"
images="${PP_IMAGES:-/tmp/tomowb-pp/images}"
mkdir -p "$out" "$images"
{
  echo "== machine"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv || true
  nvcc --version | tail -n 2 | head -n 1
  echo "parallelproj commit: $(cat "$here/PARALLELPROJ_COMMIT" 2> /dev/null)"
  echo "command: bash bench/parallelproj/run-parallelproj-bench.sh $*"
  echo "images: $images"
  date -u +%FT%TZ
} 2>&1 | tee "$out/run.log"
"$dir/bin/pp_lm_bench" --out "$out/pp_lm_bench.md" --out-dir "$images" "$@" 2>&1 | tee -a "$out/run.log"
status=${PIPESTATUS[0]}
echo "run-parallelproj-bench.sh: exit $status after ${SECONDS} s" | tee -a "$out/run.log"
exit "$status"
