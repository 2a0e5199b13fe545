#!/usr/bin/env bash
# Issue #20's full measurement in one device call: the DIRECT GPU tests (and the GPU tests of the
# array operations and projector pairs its EM rule touches), bench/direct_pet.cpp's timing tables
# and sweeps, the image quality of the simulated phantom at 1e7, 1e8 and 4.3e8 prompts (one
# simulation, each count its first prompts; written to /tmp/pet/phantom.tlm), parallelproj on the
# same file (bench/parallelproj/, needs carry build-parallelproj/parallelproj-src.tar.gz), and
# parallelproj's images measured with our ROI code. QUALITY_EVENTS, RAMLA_LAMBDA0 and
# QUALITY_FLAGS (default "--gpu-simulator": the GPU simulator, attenuation on; add
# "--no-attenuation" for none, which parallelproj then gets too) change the quality rows.
# Output in $OUT.
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
mkdir -p "$OUT" /tmp/pet
(bash bench/parallelproj/build-parallelproj.sh > /tmp/pp-build.log 2>&1 &)
cmake --preset gpu > /tmp/build.log 2>&1 &&
  cmake --build --preset gpu -j "$(nproc)" --target tomowb_test_cuda tomowb-bench-direct >> /tmp/build.log 2>&1 ||
  { tail -n 60 /tmp/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
status=0
build-gpu/tests/tomowb_test_cuda --gtest_filter='*Direct*:*DeviceArrayOps*:*GpuProjectorPair*' > /tmp/tests.log 2>&1 || status=1
grep -E "measured|FAILED|PASSED|Failure" /tmp/tests.log | tail -n 30
[ -n "${SKIP_TIMING:-}" ] || build-gpu/bench/tomowb-bench-direct --out "$OUT/bench-direct.md" > /tmp/bench.log 2>&1 || status=1
tail -n 3 /tmp/bench.log
QUALITY_FLAGS="${QUALITY_FLAGS:---gpu-simulator}"
build-gpu/bench/tomowb-bench-direct --no-timing --no-sweeps $QUALITY_FLAGS \
  --quality-events ${QUALITY_EVENTS:-1e7 1e8 4.3e8} --quality-dir /tmp/pet \
  --ramla-lambda0 "${RAMLA_LAMBDA0:-0.1}" --out "$OUT/bench-quality.md" > /tmp/quality.log 2>&1 || status=1
tail -n 3 /tmp/quality.log
for i in $(seq 60); do [ -x build-parallelproj/bin/pp_lm_bench ] && break; sleep 2; done
tail -n 2 /tmp/pp-build.log
if [ -f /tmp/pet/phantom.tlm ]; then
  bash bench/parallelproj/run-parallelproj-bench.sh --listmode /tmp/pet/phantom.tlm \
    --events 1e7,1e8,4.3e8 --reps 5 --iterations 20 --save 1,2,5,10,20 \
    $(case "$QUALITY_FLAGS" in *--no-attenuation*) echo "--attenuation none" ;; esac) 2>&1 | tail -n 6
  build-gpu/bench/tomowb-bench-direct --peer-images /tmp/tomowb-pp/images \
    --out "$OUT/pp-quality.md" > /dev/null 2>&1 || status=1
fi
exit $status
