#!/usr/bin/env bash
# Issue #18, point 7 ("nothing lost") on the GPU machine, in one device call: builds the current
# tree and a baseline (a `git archive` of the commit before the refactoring, BASELINE_TAR) with
# the `gpu` preset side by side, runs the current build's GPU tests and the CPU tests named by
# TESTS_REGEX, compares the golden outputs of both builds (scripts/golden-outputs.sh --gpu: the
# demo, the ET demo, every FDK variant and every iterative algorithm with the GPU pairs), and with
# BENCH set runs the SIRT and FDK benchmarks of both builds alternately on the same GPU.
#
#   git archive -o build-baseline/src.tar.gz <commit>     # here (carry it), then on the GPU machine:
#   bench/run-refactor-check-on-gpu.sh
#
# Output in $OUT: machine.txt, build.log, build-baseline.log, ctest-gpu.log, ctest-cpu.log,
# golden-now.txt, golden-baseline.txt, golden-diff.txt, and with BENCH (SKIP_TESTS skips the tests
# and the golden outputs): bench-{fdk,sirt}-{baseline,now}-{1,2}.md.
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-out}"
BASELINE_TAR="${BASELINE_TAR:-build-baseline/src.tar.gz}"
TESTS_REGEX="${TESTS_REGEX:-Iterative|Cgls|OrderedSubset|ProjectorPair|Adjoint|Sweep|HealthCheck|VariantRegistry|QaCli|EtDemo}"
BENCH="${BENCH:-}"
mkdir -p "$OUT"
jobs="$(nproc)"
status=0
{
  echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv || true
  cmake --version | head -n 1; nvcc --version | tail -n 2 | head -n 1; nproc
} 2>&1 | tee "$OUT/machine.txt"

echo "== build: now (build-gpu) and baseline (build-baseline/src -> build-baseline/build)"
baseline=build-baseline
if [ ! -x "$baseline/build/cli/tomowb-cli" ]; then
  rm -rf "$baseline/src" && mkdir -p "$baseline/src" &&
    tar -xzf "$BASELINE_TAR" -C "$baseline/src" || { echo "no baseline source"; exit 1; }
  (cmake -S "$baseline/src" -B "$baseline/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_CUDA_ARCHITECTURES=90 -DTOMOWB_GUI=OFF -DTOMOWB_DICOM=OFF -DTOMOWB_TIFF=OFF \
     -DTOMOWB_CUDA=ON -DTOMOWB_TESTS=OFF -DTOMOWB_BENCH=ON &&
   cmake --build "$baseline/build" -j "$((jobs / 2))" --target tomowb-cli tomowb-bench-sirt-et \
     tomowb-bench-fdk-gpu) > "$OUT/build-baseline.log" 2>&1 &
  baselinePid=$!
fi
if ! { cmake --preset gpu -DTOMOWB_BENCH=ON &&
       cmake --build --preset gpu -j "$((jobs / 2))"; } > "$OUT/build.log" 2>&1; then
  tail -n 60 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
fi
if [ -n "${baselinePid:-}" ] && ! wait "$baselinePid"; then
  tail -n 40 "$OUT/build-baseline.log"; echo "BASELINE BUILD FAILED"; exit 1
fi
echo "builds done after ${SECONDS} s"

if [ -z "${SKIP_TESTS:-}" ]; then
echo "== GPU tests"
timeout 240 ctest --preset gpu -L gpu --timeout 200 --output-on-failure -V \
  > "$OUT/ctest-gpu.log" 2>&1 || status=1
grep -E "^\[ +(FAILED|SKIPPED) +\]|tests passed|tests failed|adjoint error" "$OUT/ctest-gpu.log" |
  tail -n 60
echo "== CPU tests matching '$TESTS_REGEX' ($SECONDS s)"
timeout 150 ctest --preset gpu -LE gpu -R "$TESTS_REGEX" -j "$jobs" --timeout 120 \
  --output-on-failure > "$OUT/ctest-cpu.log" 2>&1 || status=1
grep -E "tests passed|tests failed|Failed|\*\*\*" "$OUT/ctest-cpu.log" | tail -n 20

echo "== golden outputs ($SECONDS s)"
timeout 150 scripts/golden-outputs.sh --gpu "$baseline/build/cli/tomowb-cli" \
  > "$OUT/golden-baseline.txt" 2> "$OUT/golden-baseline.log" || status=1
timeout 150 scripts/golden-outputs.sh --gpu --compare "$OUT/golden-baseline.txt" \
  build-gpu/cli/tomowb-cli > "$OUT/golden-diff.txt" 2>&1 || status=1
tail -n 30 "$OUT/golden-diff.txt"
echo "$(wc -l < "$OUT/golden-baseline.txt") outputs; failed cases: $(grep -c FAILED "$OUT/golden-baseline.txt")"
fi

if [ -n "$BENCH" ]; then
  echo "== benchmarks, baseline and now alternately, ${ROUNDS:-2} rounds ($SECONDS s)"
  for round in $(seq "${ROUNDS:-2}"); do
    for which in baseline now; do
      bin="build-gpu/bench"; [ "$which" = baseline ] && bin="$baseline/build/bench"
      timeout 120 "$bin/tomowb-bench-fdk-gpu" --sizes 512 --kernel-only --no-multi-gpu \
        --no-cross-check --out "$OUT/bench-fdk-$which-$round.md" > /dev/null \
        2>> "$OUT/bench.log" || status=1
      timeout 150 "$bin/tomowb-bench-sirt-et" --tables 2 --sizes 1024 2048 --no-e2e \
        --out "$OUT/bench-sirt-$which-$round.md" > /dev/null 2>> "$OUT/bench.log" || status=1
      echo "  $which round $round done ($SECONDS s)"
    done
  done
fi
echo "all done after ${SECONDS} s, status $status"
exit "$status"
