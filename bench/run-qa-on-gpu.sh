#!/usr/bin/env bash
# One device call for issue #9: build the `gpu` preset (tomowb-cli and the test binaries), run
# the QA and GPU tests, then sweep every FDK and SIRT variant on the GPU and the CPU
# (tomowb-cli sweep) and compare the fastest FDK variant with the float64 reference, with their
# reports in $OUT. About 8 minutes on the H100.
#   machine.txt  build.log  ctest.log  sweep-fdk.json  sweep-sirt.json  rerun.log  reports.tgz
#   (sweep-fdk/, sweep-sirt/, compare-fast/: report.md, pareto.svg, profile, slices)
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
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
if ! { cmake --preset gpu && cmake --build --preset gpu -j "$jobs" --target tomowb-cli \
         tomowb_test_qa tomowb_test_cuda tomowb_test_cli; } > "$OUT/build.log" 2>&1; then
  tail -n 60 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
fi
echo "build done after ${SECONDS} s"

echo "== tests: qa, cli (QA), and every GPU test"
{
  ./build-gpu/tests/tomowb_test_qa
  ./build-gpu/tests/tomowb_test_cli --gtest_filter='QaCli*'
  ./build-gpu/tests/tomowb_test_cuda
} > "$OUT/ctest.log" 2>&1 || status=1
grep -E "PASSED|FAILED|SKIPPED \]" "$OUT/ctest.log" | tail -n 12
echo "tests done after ${SECONDS} s"

cli=./build-gpu/cli/tomowb-cli
cd "$OUT"
echo "== FDK sweep: every fdk.bp. variant, 256^3 from 360 views of 256 x 300"
timeout 200 "$OLDPWD/$cli" --json sweep --algorithm fdk --device all --size 256 --views 360 \
  --repeats 5 --warmups 1 --report sweep-fdk --force > sweep-fdk.json 2> sweep-fdk.err
echo "exit $?"
python3 - <<'PY' 2>/dev/null || true
import json
j = json.load(open("sweep-fdk.json"))
for r in j["rows"]:
    c = r.get("comparison", {})
    print(f'{r["label"]:28s} {r.get("medianSeconds", 0):10.5f} s  NRMSE {c.get("nrmse", 0):9.3g}  '
          f'{"pass" if c.get("passed") else "FAIL" if r["ran"] else r.get("skipped", r.get("failed",""))}  '
          f'{r.get("determinism", {}).get("summary", "")}')
PY
echo "== SIRT sweep: every et.fp. / et.bp. pair, 512 x 128 x 128 from 61 views, 10 iterations"
timeout 200 "$OLDPWD/$cli" --json sweep --algorithm sirt --device all --size 512 --thickness 128 \
  --iterations 10 --repeats 3 --warmups 1 --report sweep-sirt --force > sweep-sirt.json \
  2> sweep-sirt.err
echo "exit $?"
python3 - <<'PY' 2>/dev/null || true
import json
j = json.load(open("sweep-sirt.json"))
for r in j["rows"]:
    c = r.get("comparison", {})
    a = r.get("adjoint", {}).get("relativeError", "")
    print(f'{r["label"]:36s} {r.get("medianSeconds", 0):10.5f} s  NRMSE {c.get("nrmse", 0):9.3g}  '
          f'{"pass" if c.get("passed") else "FAIL" if r["ran"] else r.get("skipped", r.get("failed",""))}  '
          f'{r.get("determinism", {}).get("summary", "")}  adjoint {a}')
PY
echo "== compare + rerun: demo FDK with fdk.bp.fast against fdk.bp.cpu-f64"
{
  "$OLDPWD/$cli" -q demo --size 256 --views 360 --device gpu --variant fdk.bp.fast -o demo-fast
  "$OLDPWD/$cli" -q demo --size 256 --views 360 --variant fdk.bp.cpu-f64 -o demo-ref
  "$OLDPWD/$cli" compare demo-fast/recon.mhd demo-ref/recon.mhd --variant fdk.bp.fast \
    --report compare-fast --force
  "$OLDPWD/$cli" rerun demo-fast/run.json
} > rerun.log 2>&1
tail -n 12 rerun.log
rm -rf demo-fast demo-ref
# The device tool brings back few files: the report folders travel as one archive.
tar czf reports.tgz sweep-fdk sweep-sirt compare-fast 2>/dev/null && rm -rf sweep-fdk sweep-sirt compare-fast
cat sweep-fdk.err sweep-sirt.err >> rerun.log 2>/dev/null; rm -f sweep-fdk.err sweep-sirt.err
echo "all done after ${SECONDS} s"
exit $status
