#!/usr/bin/env bash
# Issue #22 on a GPU machine (nvidia-h100-x2: two H100s of one host), in stages so that each fits
# one device call (the machine stays warm between them):
#   build     the gpu preset's CLI, scale/cuda/cli tests and FDK benchmark; the slab, SIRT-slab,
#             MPI and GPU FDK/SIRT tests
#   weak      weak scaling over the GPUs (point 6): FDK and SIRT with the same work per GPU on
#             1 GPU (a plain process and 1 MPI rank), on 2 MPI ranks (one GPU each) and on 1
#             process driving both; 5 runs each,
#             min / median / max wall time, efficiency t(1 GPU) / t(2 GPUs), compute and I/O
#             from the run records; the bits of the 2-rank FDK against the 1-process one
#   streamed  a 2048^3 FDK streamed to disk in slabs on one GPU (compute and I/O split), then the
#             multi-GPU FDK benchmark's end-to-end tables at 512^3 and 1024^3
# Results in $OUT (machine.txt, build.log, tests.log, weak.md, streamed.md, bench-fdk-gpu.md).
# WORK=/dev/shm/x WEAK_NAME=weak-tmpfs runs the weak stage with its files in memory, which shows
# the GPUs' scaling without the one disk both ranks share.
# WEAK_OUTPUT=tiff writes folders of TIFF slices instead of one raw file (the device image has no
# libtiff: run bench/stage-static-libtiff.sh here and carry build-carry; the cli stage then links
# Debian's static archives).
#   ooc-gpu-limit  out-of-core SIRT slabs planned for --gpu-mem-limit (after build or cli)
#   write-probe    how fast a slab reaches a file: pwrite or a mapping written by T threads
#   split          the compute split of the weak stage's 1-GPU and 1-process-2-GPU runs
# Usage: bench/run-scale-on-gpu.sh build|cli|weak|streamed|ooc|ooc-gpu-limit|write-probe|split
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$(dirname "$0")/.."
root="$PWD"
OUT="${OUT:-$PWD/gpu-out}"
mkdir -p "$OUT"
cli="$root/build-gpu/cli/tomowb-cli"
work="${WORK:-/tmp/tomowb-scale}"
mkdir -p "$work"
stage="${1:-build}"
status=0

# Wall seconds of a command, its output to a log.
# The log starts and ends with the launcher's wall clock ("[phases] launcher: epoch E start|end"),
# for the phase split of TOMOWB_PHASES=1 runs (phases below).
timed() {
  local log="$1"; shift
  local start="$EPOCHREALTIME"
  echo "[phases] launcher: epoch $start start" > "$log"
  "$@" >>"$log" 2>&1 || { echo "FAILED: $* (log $log)" >&2; tail -n 20 "$log" >&2; return 1; }
  local end="$EPOCHREALTIME"
  echo "[phases] launcher: epoch $end end" >> "$log"
  python3 -c "print(f'{$end - $start:.3f}')"
}
# "before main | MPI | input + plan | slabs | to return | exit" seconds of a TOMOWB_PHASES=1 log:
# the slowest rank's, from the launcher's start to the command's end.
phases() { python3 -c "
import re, sys
t = {}
for m in re.finditer(r'\[phases\] (rank \d+|launcher): epoch ([0-9.]+),? (?:\+[0-9.]+ s )?(.*)', open(sys.argv[1]).read()):
    t.setdefault(m.group(3).strip(), []).append(float(m.group(2)))
need = ['start', 'main', 'MPI started (or none)', 'input opened', 'slabs planned',
        'slabs done, output in place', 'command returned', 'end']
if not all(k in t for k in need): print('- | - | - | - | - | -'); sys.exit()
s = t['start'][0]; last = lambda k: max(t[k]) - s
cuts = [last(k) for k in need[1:]]
d = [cuts[0], cuts[1] - cuts[0], cuts[3] - cuts[1], cuts[4] - cuts[3], cuts[5] - cuts[4], cuts[6] - cuts[5]]
print(' | '.join(f'{x:.2f}' for x in d))" "$1"; }
# "min / median / max" of numbers on stdin.
spread() { sort -g | python3 -c "
import sys; t = [float(x) for x in sys.stdin if x.strip()]
print(f'{t[0]:.2f} / {t[len(t)//2]:.2f} / {t[-1]:.2f}' if t else '-')"; }
median() { sort -g | python3 -c "
import sys; t = [float(x) for x in sys.stdin if x.strip()]; print(f'{t[len(t)//2]:.4f}' if t else 'nan')"; }
# compute | read + write seconds, summed over the ranks' lines "rank K of N: ... read R s, compute
# C s, write W s" of a log (the runs write no run record: it hashes every input and output, which
# for these files takes longer than the reconstruction).
split() { python3 -c "
import re, sys
c = rw = 0.0
for m in re.finditer(r'read ([0-9.]+) s, compute ([0-9.]+) s, write ([0-9.]+) s', open(sys.argv[1]).read()):
    c += float(m.group(2)); rw += float(m.group(1)) + float(m.group(3))
print(f'{c:.2f} | {rw:.2f}')" "$1"; }

# The weak and split stages' inputs, in the current folder: a cone beam of 720 views of 1024 x
# 1024 and tilt series of 61 views of 1024 columns and 256 or 512 rows.
weakData() {
  "$cli" -q phantom -o cone.json --cols 1024 --rows 1024 --views 720 --pitch-mm 0.2 || return 1
  # The same scan with half the detector's rows: the 1024 x 1024 x 512 volume's own share of the
  # detector (magnification 2: 512 rows of 0.2 mm are 51.2 mm at the isocentre, 512 slices of 0.1
  # mm), so that input and output both double from 1 GPU to 2 (the weak stage's f1w and f1v rows).
  "$cli" -q phantom -o cone512.json --cols 1024 --rows 512 --views 720 --pitch-mm 0.2 || return 1
  for rows in 256 512; do
    "$cli" -q phantom -o "tilt$rows.json" --beam parallel --scan arc --arc-deg 120 --views 61 \
      --cols 1024 --rows "$rows" --pitch-mm 0.1 || return 1
  done
}

# TIFF from Debian's static archives where build-carry/libtiff was carried here.
source bench/static-libtiff-flags.sh

case "$stage" in
write-probe)
  # How fast a slab reaches a file (bench/probes/slab_write_probe.cpp): 2 GiB in tmpfs, 5 runs
  # per row (40 s), and with WRITE_PROBE_DISK=1 on the work disk too (140 s more).
  g++ -O2 -fopenmp -o "$work/slab_write_probe" bench/probes/slab_write_probe.cpp || exit 1
  places=(/dev/shm); [ -n "${WRITE_PROBE_DISK:-}" ] && places+=("$work")
  for where in "${places[@]}"; do
    echo "### 2 GiB into $where ($(df -hT "$where" | awk 'NR==2 {print $2}'))"
    echo
    "$work/slab_write_probe" "$where/slab_write_probe.bin" 2048 5
    echo
  done > "$OUT/write-probe.md"
  cat "$OUT/write-probe.md"
  ;;
split)
  # Where the one-GPU and the one-process-two-GPU runs of the weak stage spend their compute
  # (TOMOWB_PHASES=1 prints the solver's or the FDK slab's split), 3 runs each; after cli.
  cd "$work"
  weakData || exit 1
  export TOMOWB_PHASES=1
  for i in 1 2 3; do
    for run in "s1 256 256 0" "s2p 512 512 0 1"; do
      set -- $run; key=$1 rows=$2 slices=$3; shift 3
      rm -f "$key.raw"
      "$cli" --no-record recon sirt -i "tilt$rows.json" --device gpu --iterations 50 --thickness 256 \
        -o "$key.raw" --slab-slices "$slices" --gpus "$@" 2>&1 | grep -E "solver|^rank|slabs (planned|done)" | sed "s/^/$key: /"
    done
    for run in "f1 512 0" "f2p 1024 0 1"; do
      set -- $run; key=$1 nz=$2; shift 2
      rm -f "$key.raw"
      "$cli" --no-record recon fdk -i cone.json --shape 1024 1024 "$nz" --voxel-mm 0.1 --device gpu \
        -o "$key.raw" --slab-slices "$nz" --gpus "$@" 2>&1 | grep -E "fdk, last|^rank|slabs (planned|done)" | sed "s/^/$key: /"
    done
  done > "$OUT/split.txt" 2>&1
  cat "$OUT/split.txt"
  ;;
huge)
  # Transparent huge pages for the large host buffers (HostMemory's MADV_HUGEPAGE hint) against
  # without (TOMOWB_HUGE_PAGES=off): the weak stage's 1- and 2-rank FDK to one raw file and one
  # process driving both GPUs, RUNS runs each, alternating; after cli (TIFF not needed).
  cd "$work"
  weakData || exit 1
  cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag
  export TOMOWB_PHASES=1
  declare -A times
  for i in $(seq "${RUNS:-5}"); do
    for hp in on off; do
      for run in "f1r 512 mpirun -x TOMOWB_PHASES -x TOMOWB_HUGE_PAGES -np 1 -- --slab-slices 512 --gpus 0" \
                 "f2r 1024 mpirun -x TOMOWB_PHASES -x TOMOWB_HUGE_PAGES -np 2 -- --slab-slices 256" \
                 "f2p 1024 -- --slab-slices 1024 --gpus 0 1"; do
        set -- $run; key=$1 nz=$2; shift 2
        launch=(); while [ "$1" != "--" ]; do launch+=("$1"); shift; done; shift
        rm -f "h-$key-$hp.raw" "h-$key-$hp.json"
        times[$key-$hp]+="$(TOMOWB_HUGE_PAGES=$hp timed "h-$key-$hp.log" "${launch[@]}" "$cli" --no-record recon fdk -i cone.json --shape 1024 1024 "$nz" --voxel-mm 0.1 --device gpu -o "h-$key-$hp.raw" "$@") "
      done
    done
  done
  {
    echo "# Huge pages for the large host buffers ($(date -u +%Y-%m-%d), bench/run-scale-on-gpu.sh huge)"
    echo
    echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled); defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
    echo "FDK 720 views of 1024 x 1024 to one raw file in $work; wall s min / median / max of ${RUNS:-5}."
    echo
    echo "| run | MADV_HUGEPAGE | without (TOMOWB_HUGE_PAGES=off) |"
    echo "|---|---|---|"
    for key in f1r f2r f2p; do
      echo "| $key | $(echo "${times[$key-on]}" | tr ' ' '\n' | spread) | $(echo "${times[$key-off]}" | tr ' ' '\n' | spread) |"
    done
    echo
    for key in f1r f2r f2p; do for hp in on off; do
      echo "$key $hp: $(grep -h "^rank\|fdk, last" "h-$key-$hp.log" | sed 's/.*fdk, last/fdk, last/' | tr '\n' ' ')"
    done; done
  } > "$OUT/huge.md"
  cat "$OUT/huge.md"
  ;;
cli)
  cmake --preset gpu "${tiffFlags[@]}" > "$OUT/build.log" 2>&1 && cmake --build build-gpu -j "$(nproc)" \
    --target tomowb-cli >> "$OUT/build.log" 2>&1 || { tail -n 40 "$OUT/build.log"; exit 1; }
  echo "cli built after ${SECONDS} s"
  ;;
build)
  {
    echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    nvidia-smi topo -m 2>/dev/null | head -n 6; nproc; free -g | head -n 2; df -h /tmp | tail -1
    mpirun --version 2>&1 | head -n 1
  } > "$OUT/machine.txt" 2>&1
  cat "$OUT/machine.txt"
  echo "== build"
  if ! { cmake --preset gpu -DTOMOWB_BENCH=ON "${tiffFlags[@]}" &&
         cmake --build build-gpu -j "$(nproc)" --target tomowb-cli tomowb_test_scale \
           tomowb_test_cuda tomowb_test_cli tomowb-bench-fdk-gpu; } > "$OUT/build.log" 2>&1; then
    tail -n 60 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
  fi
  grep -E "tomowb:|HDF5|MPI" "$OUT/build.log" | head -n 5
  echo "build done after ${SECONDS} s"
  echo "== tests"
  {
    timeout 120 build-gpu/tests/tomowb_test_scale 2>&1 | tail -n 4
    timeout 300 build-gpu/tests/tomowb_test_cuda \
      --gtest_filter='GpuSlabSirt*:GpuFdk*:GpuEtSirt*:GpuDevices*' 2>&1 |
      grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) |Failure|Expected|Which is|Actual|error|tests? ran" |
      head -n 80
    timeout 300 build-gpu/tests/tomowb_test_cli --gtest_filter='Slab*:*Hdf5*' 2>&1 |
      grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) |Failure|Expected|error|tests? ran" | head -n 40
  } > "$OUT/tests.log" 2>&1
  grep -qE "FAILED" "$OUT/tests.log" && status=1
  grep -E "PASSED|FAILED|SKIPPED \]" "$OUT/tests.log" | tail -n 20
  ;;
weak)
  if [ "${WEAK_OUTPUT:-raw}" = tiff ] && ! grep -q "TOMOWB_TIFF:BOOL=ON" "$root/build-gpu/CMakeCache.txt"; then
    echo "WEAK_OUTPUT=tiff needs a build with TIFF: run bench/stage-static-libtiff.sh here, carry build-carry, then the cli stage" >&2
    exit 1
  fi
  cd "$work"
  gpus=$(nvidia-smi -L | wc -l)
  echo "== data"
  weakData || exit 1
  echo "data after ${SECONDS} s"
  # WEAK_OUTPUT=tiff: every output a folder of TIFF slices (written by all the threads of a rank
  # at once, one file each) instead of one raw file that all the writers share.
  outName() { if [ "${WEAK_OUTPUT:-raw}" = tiff ]; then echo "${1%.raw}"; else echo "$1"; fi; }
  fdk() { # NZ OUT LAUNCHER OPTIONS...
    local nz="$1" out; out=$(outName "$2"); local launch="$3"; shift 3
    $launch "$cli" --no-record recon fdk -i "${cone:-cone.json}" --shape 1024 1024 "$nz" --voxel-mm 0.1 \
      --device gpu -o "$out" "$@"
  }
  sirt() { # ROWS OUT LAUNCHER OPTIONS...
    local rows="$1" out; out=$(outName "$2"); local launch="$3"; shift 3
    $launch "$cli" --no-record recon sirt -i "tilt$rows.json" --device gpu --iterations 50 \
      --thickness 256 -o "$out" "$@"
  }
  # The last run's output goes before the clock starts: freeing 4 GiB of tmpfs pages took up to
  # 0.25 s, which the 2-GPU rows paid twice over (until 2026-11-27y it was inside the timing).
  fresh() { local out; out=$(outName "$1"); rm -rf "$out" "${out%.raw}".json "${out%.raw}".run.json; }
  runs="${RUNS:-5}"
  export TOMOWB_PHASES=1  # each rank's phases into its log (mpirun -x passes it on)
  declare -A times
  for i in $(seq $runs); do
    fresh f1.raw
    times[f1]+="$(timed f1.log fdk 512 f1.raw "" --slab-slices 512 --gpus 0) "
    # The same under mpirun -np 1: the 2-rank rows' baseline with the launcher's start included.
    # One GPU, as each of the 2 ranks has (alone on the machine, a rank would see both GPUs and
    # pay for a second context: 2026-11-27o).
    fresh f1r.raw
    times[f1r]+="$(timed f1r.log fdk 512 f1r.raw "mpirun -x TOMOWB_PHASES -np 1" --slab-slices 512 --gpus 0) "
    # The same rank on its share of the host, as each of the 2 ranks runs: half the cores (0-15
    # of 32, as rank 0 of 2 gets them) and as many OpenMP threads, with one GPU.
    half=$(( $(nproc) / 2 ))
    fresh f1h.raw
    times[f1h]+="$(timed f1h.log fdk 512 f1h.raw "mpirun -x TOMOWB_PHASES -x OMP_NUM_THREADS=$half --bind-to none -np 1 taskset -c 0-$((half - 1))" --slab-slices 512 --gpus 0) "
    if (( gpus >= 2 )); then
      # Slabs of 256: two mirrored pairs ({0, 3}: the outer quarters; {1, 2}: the centred half),
      # one per rank, both on the z-mirror kernel (SlabPlan::units; until 2026-11-27z two slabs
      # of 512, each off the centre and on the kernel without the mirror: the f2n row).
      fresh f2r.raw
      times[f2r]+="$(timed f2r.log fdk 1024 f2r.raw "mpirun -x TOMOWB_PHASES -np 2" --slab-slices 256) "
      # Slabs of 128: four mirrored pairs, two per rank, so each rank reads its second pair's rows
      # while the first is reconstructed and writes the first beside the second (2026-11-28);
      # against one rank on the same slabs (two pairs) and on one slab of 512.
      fresh f2a.raw
      times[f2a]+="$(timed f2a.log fdk 1024 f2a.raw "mpirun -x TOMOWB_PHASES -np 2" --slab-slices 128) "
      fresh f1a.raw
      times[f1a]+="$(timed f1a.log fdk 512 f1a.raw "mpirun -x TOMOWB_PHASES -np 1" --slab-slices 128 --gpus 0) "
      # Weak scaling with the detector grown with the volume (2026-11-28): 1 rank reconstructs
      # 1024 x 1024 x 512 from a detector of 512 rows, so that each GPU's input is its share of
      # the 2-GPU run's, as SIRT's rows have it. The rows above keep the 1024-row detector, of
      # which 1 rank reads only the centre (rows 211..513 for one slab of 512) and each of 2
      # ranks about twice as many rows.
      fresh f1w.raw
      times[f1w]+="$(cone=cone512.json timed f1w.log fdk 512 f1w.raw "mpirun -x TOMOWB_PHASES -np 1" --slab-slices 128 --gpus 0) "
      fresh f1v.raw
      times[f1v]+="$(cone=cone512.json timed f1v.log fdk 512 f1v.raw "mpirun -x TOMOWB_PHASES -np 1" --slab-slices 512 --gpus 0) "
      # The same 2 ranks reading each pair's rows when its turn comes: the read-ahead's A/B (it
      # pins its buffer beside the GPU pipeline, whose CUDA calls wait for that driver lock).
      fresh f2b.raw
      times[f2b]+="$(TOMOWB_SLAB_READ_AHEAD=off timed f2b.log fdk 1024 f2b.raw "mpirun -x TOMOWB_PHASES -x TOMOWB_SLAB_READ_AHEAD -np 2" --slab-slices 128) "
      fresh f2n.raw
      times[f2n]+="$(TOMOWB_SLAB_MIRROR_PAIRS=off timed f2n.log fdk 1024 f2n.raw "mpirun -x TOMOWB_PHASES -x TOMOWB_SLAB_MIRROR_PAIRS -np 2" --slab-slices 512) "
      fresh f2p.raw
      times[f2p]+="$(timed f2p.log fdk 1024 f2p.raw "" --slab-slices 1024 --gpus 0 1) "
      fresh f2s.raw
      times[f2s]+="$(timed f2s.log fdk 1024 f2s.raw "" --slab-slices 256 --gpus 0) "
      # One process driving both over the two mirrored pairs of slabs of 256: the first pair's
      # write beside the second's read and compute.
      fresh f2q.raw
      times[f2q]+="$(timed f2q.log fdk 1024 f2q.raw "" --slab-slices 256 --gpus 0 1) "
    fi
    fresh s1.raw
    times[s1]+="$(timed s1.log sirt 256 s1.raw "" --slab-slices 256 --gpus 0) "
    fresh s1r.raw
    times[s1r]+="$(timed s1r.log sirt 256 s1r.raw "mpirun -x TOMOWB_PHASES -np 1" --slab-slices 256 --gpus 0) "
    if (( gpus >= 2 )); then
      fresh s2r.raw
      times[s2r]+="$(timed s2r.log sirt 512 s2r.raw "mpirun -x TOMOWB_PHASES -np 2" --slab-slices 256) "
      fresh s2p.raw
      times[s2p]+="$(timed s2p.log sirt 512 s2p.raw "" --slab-slices 512 --gpus 0 1) "
      if [ -n "${WEAK_UNBOUND:-}" ]; then  # as before the ranks were bound to one GPU each
        fresh f2u.raw
        times[f2u]+="$(TOMOWB_GPU_BINDING=off timed f2u.log fdk 1024 f2u.raw "mpirun -x TOMOWB_GPU_BINDING -np 2" --slab-slices 512) "
        fresh s2u.raw
        times[s2u]+="$(TOMOWB_GPU_BINDING=off timed s2u.log sirt 512 s2u.raw "mpirun -x TOMOWB_GPU_BINDING -np 2" --slab-slices 256) "
      fi
    fi
  done
  # Which GPUs each rank's process holds a context on (nvidia-smi every 0.1 s during one run).
  contexts() { # LABEL ENV...
    local label="$1"; shift
    ( while :; do nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv,noheader; sleep 0.1; done ) > "ctx-$label.txt" 2>&1 &
    local probe=$!
    env "$@" mpirun -x TOMOWB_GPU_BINDING -np 2 "$cli" --no-record recon fdk -i cone.json --shape 1024 1024 1024 \
      --voxel-mm 0.1 --device gpu -o ctx.raw --slab-slices 512 > "ctx-$label.log" 2>&1
    kill "$probe" 2>/dev/null; wait "$probe" 2>/dev/null
    echo "$label: $(sort -u "ctx-$label.txt" | awk -F, '{print $1 "@" $2}' | sort -u | tr '\n' ' ')"
    grep "^rank" "ctx-$label.log"
    rm -f ctx.raw ctx.json
  }
  if (( gpus >= 2 )); then
    {
      echo "GPU contexts of a 2-rank FDK (pid@bus of every process nvidia-smi saw):"
      contexts bound TOMOWB_GPU_BINDING=on
      contexts unbound TOMOWB_GPU_BINDING=off
    } > "$OUT/${WEAK_NAME:-weak}-contexts.txt" 2>&1
    cat "$OUT/${WEAK_NAME:-weak}-contexts.txt"
  fi
  same="-"
  [ -f f2r.raw ] && [ -f f2s.raw ] && { cmp -s f2r.raw f2s.raw && same=yes || same=NO; }
  [ -d f2r ] && [ -d f2s ] && { diff -rq f2r f2s > /dev/null && same=yes || same=NO; }
  m() { echo "${times[$1]:-}" | tr ' ' '\n' | median; }
  {
    echo "# Weak scaling over the GPUs of one host ($(date -u +%Y-%m-%d), bench/run-scale-on-gpu.sh weak)"
    echo
    echo "Machine: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $gpus," \
      "$(nproc) cores, $(mpirun --version 2>&1 | head -1). $runs runs per row, wall time of the"
    echo "whole command (start, reading the projections, reconstruction, writing and flushing the"
    echo "volume to disk; output: ${WEAK_OUTPUT:-raw}, $( [ "${WEAK_OUTPUT:-raw}" = tiff ] && echo "a folder of float32 TIFF slices" || echo "one raw file that the ranks share"))."
    echo "FDK: fdk.bp.fast from 720 views of 1024 x 1024, 1024 x 1024 x 512 voxels"
    echo "per GPU (the f1v and f1w rows: from 720 views of 1024 columns x 512 rows, the grid's own"
    echo "share of the detector, so that input and output per GPU stay the same from 1 GPU to 2). SIRT: et.fp.fast + et.bp.fast, 50 iterations of a 120-degree tilt series of 61"
    echo "views of 1024 columns, 1024 x 256 x 256 voxels per GPU (one slice per detector row)."
    echo "Efficiency: t(1 GPU, its share) / t(2 GPUs, twice the work); 1.00 = perfect."
    echo
    echo "| run | GPUs | grid | wall s min / median / max | compute s | read + write s | efficiency |"
    echo "|---|---|---|---|---|---|---|"
    row() { # key label gpus grid base
      local t; t=$(m "$1")
      local eff="-"; [ "$5" != "-" ] && eff=$(python3 -c "print(f'{$5/$t:.2f}')" 2>/dev/null)
      local s="- | -"; [ -f "$1.log" ] && s=$(split "$1.log")
      echo "| $2 | $3 | $4 | $(echo "${times[$1]:-}" | tr ' ' '\n' | spread) | $s | $eff |"
    }
    f1=$(m f1); s1=$(m s1); f1r=$(m f1r); s1r=$(m s1r)
    row f1 "FDK, 1 process" 1 "1024 x 1024 x 512" "-"
    row f1r "FDK, 1 MPI rank (mpirun -np 1)" 1 "1024 x 1024 x 512" "-"
    row f2r "FDK, 2 MPI ranks (one GPU each)" 2 "1024 x 1024 x 1024" "$f1"
    row f2r "FDK, 2 MPI ranks against 1 MPI rank" 2 "1024 x 1024 x 1024" "$f1r"
    row f1h "FDK, 1 MPI rank on its share of the host ($half of $(nproc) cores)" 1 "1024 x 1024 x 512" "-"
    row f2r "FDK, 2 MPI ranks against 1 MPI rank on its share of the host" 2 "1024 x 1024 x 1024" "$(m f1h)"
    row f2n "FDK, 2 MPI ranks, slabs of 512 without mirrored pairs, against 1 MPI rank" 2 "1024 x 1024 x 1024" "$f1r"
    row f1a "FDK, 1 MPI rank, slabs of 128 (2 mirrored pairs, the second read ahead)" 1 "1024 x 1024 x 512" "-"
    row f2a "FDK, 2 MPI ranks, slabs of 128 (2 pairs each), against 1 MPI rank on 1 slab" 2 "1024 x 1024 x 1024" "$f1r"
    row f2a "FDK, 2 MPI ranks, slabs of 128, against 1 MPI rank on the same slabs" 2 "1024 x 1024 x 1024" "$(m f1a)"
    row f1v "FDK, 1 MPI rank, a detector of 512 rows (the grid's share), 1 slab" 1 "1024 x 1024 x 512" "-"
    row f2r "FDK, 2 MPI ranks, slabs of 256, against 1 MPI rank with 512 rows, 1 slab" 2 "1024 x 1024 x 1024" "$(m f1v)"
    row f1w "FDK, 1 MPI rank, a detector of 512 rows (the grid's share), slabs of 128" 1 "1024 x 1024 x 512" "-"
    row f2a "FDK, 2 MPI ranks, slabs of 128, against 1 MPI rank with 512 rows, slabs of 128" 2 "1024 x 1024 x 1024" "$(m f1w)"
    row f2b "FDK, 2 MPI ranks, slabs of 128, no read-ahead (TOMOWB_SLAB_READ_AHEAD=off), against 1 MPI rank on 1 slab" 2 "1024 x 1024 x 1024" "$f1r"
    row f2p "FDK, 1 process driving both" 2 "1024 x 1024 x 1024" "$f1"
    row f2q "FDK, 1 process driving both, 2 mirrored pairs of slabs of 256" 2 "1024 x 1024 x 1024" "$f1"
    row f2s "FDK, 1 process, 1 GPU, the same 2 pairs in turn" 1 "1024 x 1024 x 1024" "-"
    row s1 "SIRT, 1 process" 1 "1024 x 256 x 256" "-"
    row s1r "SIRT, 1 MPI rank (mpirun -np 1)" 1 "1024 x 256 x 256" "-"
    row s2r "SIRT, 2 MPI ranks (one GPU each)" 2 "1024 x 256 x 512" "$s1"
    row s2r "SIRT, 2 MPI ranks against 1 MPI rank" 2 "1024 x 256 x 512" "$s1r"
    row s2p "SIRT, 1 process driving both" 2 "1024 x 256 x 512" "$s1"
    if [ -n "${WEAK_UNBOUND:-}" ]; then
      row f2u "FDK, 2 MPI ranks, not bound to a GPU each (TOMOWB_GPU_BINDING=off)" 2 "1024 x 1024 x 1024" "$f1"
      row s2u "SIRT, 2 MPI ranks, not bound (TOMOWB_GPU_BINDING=off)" 2 "1024 x 256 x 512" "$s1"
    fi
    echo
    echo "Where the last run's wall time went (TOMOWB_PHASES=1; the slowest rank's, seconds):"
    echo "before main = launch to main (process start, libraries); MPI = main to MPI started;"
    echo "input + plan; slabs = reading, computing, writing (the columns above); to return = after"
    echo "the slabs to the command's return; exit = after it to the launcher's end (teardown)."
    echo
    echo "| run | before main | MPI | input + plan | slabs | to return | exit |"
    echo "|---|---|---|---|---|---|---|"
    for key in f1 f1r f1h f1a f1v f1w f2r f2a f2b f2n f2p f2q s1 s1r s2r s2p; do
      [ -f "$key.log" ] && echo "| $key | $(phases "$key.log") |"
    done
    echo
    echo "FDK volume of 2 ranks = 1 process doing the same pairs of slabs in turn, bit for bit: $same."
    echo "(compute and read + write: the last run's, summed over ranks. No run records: they hash"
    echo "every input and output, 5 to 7 s for these files, longer than the reconstruction.)"
    echo "Files in $work: $(df -h "$work" | tail -1 | awk '{print $1 " (" $2 ")"}')."
  } > "$OUT/${WEAK_NAME:-weak}.md"
  cat "$OUT/${WEAK_NAME:-weak}.md"
  ;;
ooc)
  # Out-of-core cone-beam SIRT in one process (point 2): build the CLI and the GPU and scale
  # tests, run the streaming tests, then time SIRT of a 768^3 cone beam with the volume in memory
  # and on disk (--volume-on-disk, slabs of 96 slices), 3 runs each.
  { cmake --preset gpu "${tiffFlags[@]}" && cmake --build build-gpu -j "$(nproc)" --target tomowb-cli \
      tomowb_test_scale tomowb_test_cuda; } > "$OUT/build-ooc.log" 2>&1 || { tail -n 40 "$OUT/build-ooc.log"; exit 1; }
  echo "built after ${SECONDS} s"
  {
    timeout 120 build-gpu/tests/tomowb_test_scale --gtest_filter='SirtSlabs.*:SlabStreamingPair.*:IterativeVolumeFolder.*' 2>&1 | tail -n 3
    timeout 300 build-gpu/tests/tomowb_test_cuda --gtest_filter='GpuSlabSirt*:GpuDevices*:GpuSfPair*' 2>&1 |
      grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) |Failure|Expected|Which is|max \||error|tests? ran" | head -n 40
  } > "$OUT/tests-ooc.log" 2>&1
  grep -qE "FAILED" "$OUT/tests-ooc.log" && status=1
  cat "$OUT/tests-ooc.log" | tail -n 20
  cd "$work"
  "$cli" -q phantom -o ooc.json --cols 768 --rows 768 --views 360 --pitch-mm 0.25 || exit 1
  declare -A t
  for i in 1 2 3; do
    t[mem]+="$(timed ooc-mem.log "$cli" --no-record recon sirt -i ooc.json --size 768 --device gpu \
      --fp sf.fp.gather --bp sf.bp.gather --iterations 3 --nonneg -o mem.raw) "
    t[disk]+="$(timed ooc-disk.log "$cli" --no-record recon sirt -i ooc.json --size 768 --device gpu \
      --fp sf.fp.gather --bp sf.bp.gather --iterations 3 --nonneg -o disk.raw --slab-slices 96 --volume-on-disk) "
  done
  same=$("$cli" metrics disk.json -r mem.json --no-ssim 2>&1 | grep -iE "max|rmse|nrmse" | head -n 3 | tr '\n' ';')
  {
    echo "# Out-of-core cone-beam SIRT in one process ($(date -u +%Y-%m-%d), bench/run-scale-on-gpu.sh ooc)"
    echo
    echo "Machine: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) cores;"
    echo "files in $work ($(df -h "$work" | tail -1 | awk '{print $1}')). SIRT, 3 iterations, sf.fp.gather +"
    echo "sf.bp.gather on the GPU, 360 views of 768 x 768 into 768^3 (1.7 GiB); wall time of the whole"
    echo "command, 3 runs each (min / median / max)."
    echo
    echo "| run | wall s |"
    echo "|---|---|"
    echo "| in memory (the GPU pair holds the whole volume) | $(echo "${t[mem]}" | tr ' ' '\n' | spread) |"
    echo "| --volume-on-disk, 8 slabs of 96 slices streamed | $(echo "${t[disk]}" | tr ' ' '\n' | spread) |"
    echo
    echo "disk against memory (tomowb-cli metrics): $same"
    echo
    echo '```'
    grep -E "out of core|slab plan|rank 0|sirt with" ooc-disk.log | head -n 6
    echo '```'
  } > "$OUT/ooc.md"
  cat "$OUT/ooc.md"
  rm -f mem.raw disk.raw ooc.raw
  ;;
ooc-gpu-limit)
  # Out-of-core cone-beam SIRT planned for the GPU's memory (point 2): with --gpu-mem-limit the
  # slabs get short enough for the GPU pair to hold one (plan-only, then a run against the same
  # run in memory), and a --slab-slices too tall for it is refused with one that fits.
  cmake --build build-gpu -j "$(nproc)" --target tomowb-cli > "$OUT/build-ooc-limit.log" 2>&1 ||
    { tail -n 40 "$OUT/build-ooc-limit.log"; exit 1; }
  cd "$work"
  "$cli" -q phantom -o lim.json --cols 512 --rows 512 --views 360 --pitch-mm 0.375 || exit 1
  sirt=("$cli" --no-record recon sirt -i lim.json --size 512 --device gpu --fp sf.fp.gather
        --bp sf.bp.gather --iterations 2 --nonneg)
  {
    echo "# Out-of-core SIRT slabs planned for the GPU's memory ($(date -u +%Y-%m-%d), bench/run-scale-on-gpu.sh ooc-gpu-limit)"
    echo
    echo "$(nvidia-smi --query-gpu=name,memory.free --format=csv,noheader | head -1); SIRT, sf.fp.gather + sf.bp.gather, 360 views of 512 x 512 into 512^3."
    echo
    for limit in none 4G 1G; do
      extra=(); [[ "$limit" != none ]] && extra=(--gpu-mem-limit "$limit")
      echo "## --volume-on-disk --plan-only, --gpu-mem-limit $limit"
      echo '```'
      "${sirt[@]}" -o plan.raw --volume-on-disk "${extra[@]}" --plan-only 2>&1 | grep -E "slab plan|GPU|rank" | head -n 4
      echo '```'
    done
    echo "## --slab-slices 512 --gpu-mem-limit 1G (too tall)"
    echo '```'
    "${sirt[@]}" -o tall.raw --volume-on-disk --slab-slices 512 --gpu-mem-limit 1G 2>&1 | tail -n 2
    echo "exit status $?"
    echo '```'
    t_mem=$(timed lim-mem.log "${sirt[@]}" -o lim-mem.raw)
    t_disk=$(timed lim-disk.log "${sirt[@]}" -o lim-disk.raw --volume-on-disk --gpu-mem-limit 1G)
    echo "## A run with --gpu-mem-limit 1G against the same run in memory"
    echo
    echo "in memory ${t_mem} s; out of core within 1 GiB of GPU memory ${t_disk} s (one run each)"
    echo '```'
    grep -E "slab plan|out of core" lim-disk.log | head -n 3
    "$cli" metrics lim-disk.json -r lim-mem.json --no-ssim 2>&1 | grep -iE "max|rmse" | head -n 3
    echo '```'
  } > "$OUT/ooc-gpu-limit.md" 2>&1
  cat "$OUT/ooc-gpu-limit.md"
  rm -f lim-mem.raw lim-disk.raw lim.raw
  ;;
streamed)
  cd "$work"
  rm -f cone.* f*.raw s*.raw tilt*  # room for the big run
  echo "== data (2048 x 2048 x 800 views)"
  t_data=$(timed data.log "$cli" -q phantom -o big.json --cols 2048 --rows 2048 --views 800 \
    --pitch-mm 0.1) || exit 1
  echo "data: ${t_data} s"
  "$cli" recon fdk -i big.json --size 2048 --voxel-mm 0.05 --device gpu --gpus 0 \
    --slab-slices 256 -o big-out.raw --plan-only > plan.log 2>&1
  t_run=$(timed big.log "$cli" --no-record recon fdk -i big.json --size 2048 --voxel-mm 0.05 --device gpu \
    --gpus 0 --slab-slices 256 -o big-out.raw) || status=1
  {
    echo "# A 2048^3 FDK streamed to disk on one GPU ($(date -u +%Y-%m-%d), bench/run-scale-on-gpu.sh streamed)"
    echo
    echo "Machine: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) cores," \
      "$(free -g | awk '/Mem:/ {print $2}') GiB host memory; disk: $(df -h . | tail -1 | awk '{print $2}')."
    echo "Input: 800 views of 2048 x 2048 (12.5 GiB raw, made here in ${t_data} s); output"
    echo "2048^3 float32 (32 GiB) written slab by slab (slabs of 256 slices, fdatasync after each)."
    echo "One run (the volume is 32 GiB; a spread of five would need five times the disk time)."
    echo
    echo '```'
    cat plan.log
    echo '```'
    echo
    echo "| runs | wall s | compute s | read s | write s | write GB/s | GUPS (compute only) |"
    echo "|---|---|---|---|---|---|---|"
    python3 - "$t_run" <<'EOF'
import re, sys
t = float(sys.argv[1])
m = re.search(r'read ([0-9.]+) s, compute ([0-9.]+) s, write ([0-9.]+) s', open('big.log').read())
rd, c, w = float(m.group(1)), float(m.group(2)), float(m.group(3))
print(f"| 1 (no spread) | {t:.1f} | {c:.1f} | {rd:.1f} | {w:.1f} | {32 * 2**30 / w / 1e9:.2f} | {2048**3 * 800 / c / 1e9:.0f} |")
EOF
    echo
    echo '```'
    tail -n 6 big.log
    echo '```'
  } > "$OUT/streamed.md"
  cat "$OUT/streamed.md"
  rm -f big-out.raw big.raw
  left=$(( ${BUDGET_S:-560} - SECONDS ))
  if [ -x "$root/build-gpu/bench/tomowb-bench-fdk-gpu" ] && (( left > 60 )); then
    timeout --signal=TERM --kill-after=10 "$left" "$root/build-gpu/bench/tomowb-bench-fdk-gpu" \
      --sizes 512 1024 --variants fast --e2e-variants fast --phantom-sizes 1 --repeats 5 \
      --no-cross-check --out "$OUT/bench-fdk-gpu.md" --json "$OUT/bench-fdk-gpu.json" \
      2> "$OUT/bench-fdk-gpu.log" | tail -n 30
  fi
  ;;
esac
echo "stage $stage done after ${SECONDS} s, status ${status}"
exit "$status"
