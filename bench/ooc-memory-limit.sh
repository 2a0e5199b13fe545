#!/usr/bin/env bash
# Out of core under a memory limit (issue #22, point 2): a cone-beam SIRT and an FDK whose
# volume is twice the memory the process may use. The limit is a cgroup v1 memory group (root;
# this machine's /sys/fs/cgroup/memory); page cache counts against it, so the volume's files must
# really go to disk and come back. Runs, each timed:
#   1. SIRT in memory without a limit (the reference);
#   2. the same SIRT under the limit without slabs: refused before any work, with the reason;
#   3. the same SIRT under the limit in slabs: out of core chosen without asking (the block does
#      not fit), compared with 1;
#   4. FDK under the limit in slabs, compared with FDK without a limit.
# Each run is repeated RUNS times (default 5): wall time as min / median / max, the group's peak
# memory as the largest of the runs, the comparison from the last run.
# Usage: bench/ooc-memory-limit.sh [OUT.md]   (LIMIT_MIB=384, RUNS=5, TOMOWB_CLI=build/cli/tomowb-cli)
set -euo pipefail
cd "$(dirname "$0")/.."
cli="$PWD/${TOMOWB_CLI:-build/cli/tomowb-cli}"
limit_mib="${LIMIT_MIB:-384}"
runs="${RUNS:-5}"
out="${1:-/dev/stdout}"
work="$(mktemp -d "${WORK:-/tmp}/tomowb-ooc-XXXXXX")"
group="/sys/fs/cgroup/memory/tomowb-ooc-$$"
mkdir "$group"
echo $((limit_mib << 20)) > "$group/memory.limit_in_bytes"
cleanup() { rmdir "$group" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
cd "$work"
# Runs a command inside the memory group; prints its wall seconds; its output to LOG.
limited() {
  local log="$1"; shift
  local start="$EPOCHREALTIME" rc=0
  ( echo "$BASHPID" > "$group/cgroup.procs"; exec "$@" ) > "$log" 2>&1 || rc=$?
  python3 -c "print(f'{$EPOCHREALTIME - $start:.1f}')"
  return "$rc"
}
free() { local log="$1"; shift; local start="$EPOCHREALTIME"; "$@" > "$log" 2>&1
  python3 -c "print(f'{$EPOCHREALTIME - $start:.1f}')"; }
"$cli" -q phantom -o scan.json --cols 384 --rows 192 --views 40 --pitch-mm 1.0
grid=(--shape 512 512 768)
sirt=(recon sirt -i scan.json "${grid[@]}" --iterations 2 --nonneg)
spread() {  # "min / median / max" of the seconds given
  python3 -c "import sys, statistics as s; v = sorted(map(float, sys.argv[1:]))
print(f'{v[0]:.1f} / {s.median(v):.1f} / {v[-1]:.1f}')" "$@"
}
peak() {  # the group's peak memory since the last reset, MiB; then reset it
  local bytes; bytes=$(cat "$group/memory.max_usage_in_bytes")
  echo 0 > "$group/memory.max_usage_in_bytes"
  echo $((bytes >> 20))
}
t_mem=() t_refused=() t_disk=() t_fdk_free=() t_fdk=()
peak_disk=0 peak_fdk=0 rc_refused=0
for run in $(seq "$runs"); do
  t_mem+=("$(free mem.log "$cli" --no-record "${sirt[@]}" -o memory.raw)")
  rc_refused=0
  t_refused+=("$(limited refused.log "$cli" --no-record "${sirt[@]}" -o refused.raw)") || rc_refused=$?
  peak > /dev/null
  t_disk+=("$(limited disk.log "$cli" --no-record "${sirt[@]}" -o disk.raw --slab-slices 64)")
  p=$(peak); peak_disk=$((p > peak_disk ? p : peak_disk))
  t_fdk_free+=("$(free fdk-free.log "$cli" --no-record recon fdk -i scan.json "${grid[@]}" -o fdk-free.raw)")
  t_fdk+=("$(limited fdk.log "$cli" --no-record recon fdk -i scan.json "${grid[@]}" -o fdk.raw --slab-slices 64)")
  p=$(peak); peak_fdk=$((p > peak_fdk ? p : peak_fdk))
done
compare() { "$cli" metrics "$1" -r "$2" --no-ssim 2>&1 | grep -E "NRMSE|max \|diff\|" | tr -s ' ' | sed 's/|diff|/abs diff/' | tr '\n' ';'; }
{
  echo "# Out of core under a memory limit ($(date -u +%Y-%m-%d), bench/ooc-memory-limit.sh)"
  echo
  echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); files in"
  echo "$(df -h "$work" | tail -1 | awk '{print $1}'). Limit: a cgroup v1 memory group of $limit_mib MiB (page"
  echo "cache included). Volume 512 x 512 x 768 float32 (768 MiB, twice the limit); 40 views of 384 x 192."
  echo "$runs runs of each; wall time min / median / max; peak memory: the largest of the runs; result of the last run."
  echo
  echo "| run | runs | limit | wall s (min / median / max) | peak memory of the group | result |"
  echo "|---|---|---|---|---|---|"
  echo "| SIRT, 2 iterations, in memory | $runs | none | $(spread "${t_mem[@]}") | - | reference |"
  echo "| the same, in memory | $runs | $limit_mib MiB | $(spread "${t_refused[@]}") | - | exit $rc_refused: $(grep -m1 -iE "error|memory" refused.log | cut -c1-160) |"
  echo "| the same, --slab-slices 64 | $runs | $limit_mib MiB | $(spread "${t_disk[@]}") | $peak_disk MiB | $(compare disk.json memory.json) |"
  echo "| FDK, in memory | $runs | none | $(spread "${t_fdk_free[@]}") | - | reference |"
  echo "| FDK, --slab-slices 64 | $runs | $limit_mib MiB | $(spread "${t_fdk[@]}") | $peak_fdk MiB | $(compare fdk.json fdk-free.json) |"
  echo
  echo '```'
  grep -E "out of core|slab plan|^rank|sirt with" disk.log | cut -c1-300
  echo '```'
} > "$out"
