#!/usr/bin/env bash
# One device call for issue #22, point 1 (fdk.bp.fast at least 1950 GUPS kernel-only at 512^3,
# geometries without the mirror at least 1000): where the backprojection kernels lose time, and
# what the hybrid kernels (texture unit and load path together) gain. Stages, in the order given:
#   tests    the GPU FDK tests (GpuFdk*, GpuSlabFdk*, GpuHostMemory*, GpuDevices*).
#   bench    tomowb-bench-fdk-gpu at 512^3 and 1024^3: kernel only for layered16, hybrid,
#            mirror-half2, mirror-hybrid and fast (5 runs after a warm-up, the error against
#            float64 in every row), end to end for fast.
#   sweep    kernel only at 512^3 and 1024^3 for each N of MIRROR_EVERY (mirror-hybrid) and
#            HYBRID_EVERY (hybrid): every N-th view sampled with loads (TOMOWB_FDK_HYBRID_EVERY).
#   e2e      end to end at 512^3 (and kernel only), fast (mirror-hybrid) against mirror-half2 in one
#            process, then in the other order: E2E_ROUNDS rounds.
#   multi    every test of the CUDA test program (so with two GPUs the multi-GPU ones too), then
#            fast at 512^3 and 1024^3 with the one- against two-GPU rows (run it on a two-GPU kind).
#   profile  Nsight Compute (--set full, clocks left alone) of one timed launch of each of
#            PROFILE_VARIANTS at 512^3 (and mirror-hybrid at 1024^3).
# Uses the binaries at $BENCH and $TESTS (default build-gpu/...: built here with the gpu preset
# and carried); builds them there with the gpu preset when they are missing or do not start.
# Results in $OUT: machine.txt, summary.txt, bench.md, and logs.tar.gz (logs, ncu text, tables).
# Usage on the GPU machine: OUT=... bash bench/run-kernel-profile-on-gpu.sh [tests] [bench] ...
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
WORK="${WORK:-/tmp/kernel-profile}"
BENCH="${BENCH:-build-gpu/bench/tomowb-bench-fdk-gpu}"
TESTS="${TESTS:-build-gpu/tests/tomowb_test_cuda}"
MIRROR_EVERY="${MIRROR_EVERY:-3 4 5}"
HYBRID_EVERY="${HYBRID_EVERY:-2 3 4}"
E2E_ROUNDS="${E2E_ROUNDS:-2}"
PROFILE_VARIANTS="${PROFILE_VARIANTS:-mirror-half2 mirror-hybrid layered16 hybrid}"
stages=("$@")
(( ${#stages[@]} == 0 )) && stages=(tests bench sweep)
mkdir -p "$OUT" "$WORK"
status=0
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$OUT/machine.txt"
if ! "$BENCH" --help > /dev/null 2>&1 || ! "$TESTS" --gtest_list_tests > /dev/null 2>&1; then
  echo "building the gpu preset here"
  { cmake --preset gpu -DTOMOWB_BENCH=ON &&
    cmake --build build-gpu -j "$(nproc)" --target tomowb-bench-fdk-gpu tomowb_test_cuda; } \
    > "$WORK/build.log" 2>&1 || { tail -n 40 "$WORK/build.log"; echo "BUILD FAILED"; exit 1; }
  BENCH=build-gpu/bench/tomowb-bench-fdk-gpu TESTS=build-gpu/tests/tomowb_test_cuda
fi
common=(--kernel-only --no-cross-check --no-multi-gpu --phantom-sizes 1 --repeats 5)

rows() {  # label file: the kernel-only rows of a benchmark table
  grep -E "^\| fdk.bp" "$2" | grep -v "end to end" | awk -F'|' -v l="$1" '
    { printf "%-22s %-8s %-28s ms  %8s GUPS  %s of ceiling  err %s\n", l, $4, $6, $8, $11, $12 }'
}

profile() {  # name kernel-regex bench-arguments...
  local name=$1 kernel=$2
  shift 2
  timeout 400 ncu --clock-control none --kernel-name "regex:$kernel" --launch-skip 1 --launch-count 1 \
    --set full -f -o "$WORK/$name" "$BENCH" "${common[@]}" "$@" > "$WORK/$name.log" 2>&1
  ncu --import "$WORK/$name.ncu-rep" --page details > "$WORK/$name.txt" 2>&1
  echo "== $name"
  grep -E "Duration|Registers Per|Achieved Occupancy|L1/TEX Hit Rate|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Issue Slots Busy|No Eligible|Executed Ipc Active" \
    "$WORK/$name.txt"
}

kernelOf() {  # variant: the kernel name's part in the SASS symbol
  case "$1" in
    mirror-half2) echo mirrorHalf2Kernel ;; mirror-hybrid) echo mirrorHybridKernel ;;
    layered16) echo layered16Kernel ;; hybrid) echo layeredHybridKernel ;; *) echo "$1" ;;
  esac
}

for stage in "${stages[@]}"; do
  case "$stage" in
    tests)
      timeout 500 "$TESTS" --gtest_filter='GpuFdk*:GpuSlabFdk*:GpuHostMemory*:GpuDevices*' \
        > "$WORK/tests.log" 2>&1 || status=1
      grep -E "^\[ +(FAILED|PASSED|SKIPPED) |tests ran|Failure" "$WORK/tests.log" | tail -n 30 \
        | tee -a "$OUT/summary.txt"
      ;;
    bench)
      timeout 400 "$BENCH" --sizes 512 1024 --variants layered16 hybrid mirror-half2 mirror-hybrid fast \
        --e2e-variants fast --phantom-sizes 1 --repeats 5 --no-cross-check --no-multi-gpu \
        --out "$OUT/bench.md" > "$WORK/bench.log" 2>&1 || status=1
      rows bench "$OUT/bench.md" | tee -a "$OUT/summary.txt"
      grep -E "^\| fdk.bp.fast" "$OUT/bench.md" | grep -v "ran fdk" | awk -F'|' '
        { printf "end to end %-8s wall %-24s s\n", $4, $6 }' | tee -a "$OUT/summary.txt"
      ;;
    sweep)
      for n in $MIRROR_EVERY; do
        TOMOWB_FDK_HYBRID_EVERY=$n timeout 200 "$BENCH" "${common[@]}" --sizes 512 1024 \
          --variants mirror-hybrid --out "$WORK/mirror-hybrid-every-$n.md" > "$WORK/mirror-hybrid-every-$n.log" 2>&1
        rows "mirror-hybrid every $n" "$WORK/mirror-hybrid-every-$n.md" | tee -a "$OUT/summary.txt"
      done
      for n in $HYBRID_EVERY; do
        TOMOWB_FDK_HYBRID_EVERY=$n timeout 200 "$BENCH" "${common[@]}" --sizes 512 1024 \
          --variants hybrid --out "$WORK/hybrid-every-$n.md" > "$WORK/hybrid-every-$n.log" 2>&1
        rows "hybrid every $n" "$WORK/hybrid-every-$n.md" | tee -a "$OUT/summary.txt"
      done
      ;;
    e2e)
      for round in $(seq 1 "$E2E_ROUNDS"); do
        for order in "fast mirror-half2" "mirror-half2 fast"; do
          timeout 200 "$BENCH" --sizes 512 --variants $order --e2e-variants $order --phantom-sizes 1 \
            --repeats 5 --no-cross-check --no-multi-gpu --out "$WORK/e2e-$round-${order// /-}.md" \
            > "$WORK/e2e-$round-${order// /-}.log" 2>&1 || status=1
          grep -E "^\| fdk.bp" "$WORK/e2e-$round-${order// /-}.md" | awk -F'|' -v o="$round: $order" '
            NF > 18 { printf "e2e %-26s %-44s wall %-24s backproject %s rest %s upload %s\n", o, $2, $6, $10, $12, $13 }' \
            | tee -a "$OUT/summary.txt"
        done
      done
      ;;
    multi)
      timeout 500 "$TESTS" > "$WORK/tests-all.log" 2>&1 || status=1
      grep -E "^\[ +(FAILED|PASSED|SKIPPED) |tests ran|Failure" "$WORK/tests-all.log" | tail -n 30 \
        | tee -a "$OUT/summary.txt"
      timeout 400 "$BENCH" --sizes 512 1024 --variants fast --e2e-variants fast --phantom-sizes 1 \
        --repeats 5 --no-cross-check --out "$OUT/bench-multi.md" > "$WORK/bench-multi.log" 2>&1 || status=1
      grep -E "^\| fdk.bp.fast" "$OUT/bench-multi.md" | cut -c1-400 | tee -a "$OUT/summary.txt"
      ;;
    profile)
      for v in $PROFILE_VARIANTS; do
        profile "$v-512" "$(kernelOf "$v")" --sizes 512 --variants "$v"
      done | tee -a "$OUT/summary.txt"
      profile mirror-hybrid-1024 mirrorHybridKernel --sizes 1024 --variants mirror-hybrid \
        | tee -a "$OUT/summary.txt"
      ;;
  esac
  echo "stage $stage done after ${SECONDS} s"
done
tar -C "$WORK" -czf "$OUT/logs.tar.gz" --exclude='*.ncu-rep' . 2>/dev/null
echo "status $status"
exit "$status"
