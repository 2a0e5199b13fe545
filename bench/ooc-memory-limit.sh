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
# Usage: bench/ooc-memory-limit.sh [OUT.md]   (LIMIT_MIB=384, TOMOWB_CLI=build/cli/tomowb-cli)
set -euo pipefail
cd "$(dirname "$0")/.."
cli="$PWD/${TOMOWB_CLI:-build/cli/tomowb-cli}"
limit_mib="${LIMIT_MIB:-384}"
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
t_mem=$(free mem.log "$cli" --no-record "${sirt[@]}" -o memory.raw)
rc_refused=0
t_refused=$(limited refused.log "$cli" --no-record "${sirt[@]}" -o refused.raw) || rc_refused=$?
echo 0 > "$group/memory.max_usage_in_bytes"
t_disk=$(limited disk.log "$cli" --no-record "${sirt[@]}" -o disk.raw --slab-slices 64)
peak_disk=$(cat "$group/memory.max_usage_in_bytes")
t_fdk_free=$(free fdk-free.log "$cli" --no-record recon fdk -i scan.json "${grid[@]}" -o fdk-free.raw)
echo 0 > "$group/memory.max_usage_in_bytes"
t_fdk=$(limited fdk.log "$cli" --no-record recon fdk -i scan.json "${grid[@]}" -o fdk.raw --slab-slices 64)
peak_fdk=$(cat "$group/memory.max_usage_in_bytes")
compare() { "$cli" metrics "$1" -r "$2" --no-ssim 2>&1 | grep -E "NRMSE|max \|diff\|" | tr -s ' ' | sed 's/|diff|/abs diff/' | tr '\n' ';'; }
{
  echo "# Out of core under a memory limit ($(date -u +%Y-%m-%d), bench/ooc-memory-limit.sh)"
  echo
  echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); files in"
  echo "$(df -h "$work" | tail -1 | awk '{print $1}'). Limit: a cgroup v1 memory group of $limit_mib MiB (page"
  echo "cache included). Volume 512 x 512 x 768 float32 (768 MiB, twice the limit); 40 views of 384 x 192."
  echo "One run each (no spread: a correctness demonstration, not a benchmark)."
  echo
  echo "| run | runs | limit | wall s | peak memory of the group | result |"
  echo "|---|---|---|---|---|---|"
  echo "| SIRT, 2 iterations, in memory | 1 (no spread) | none | $t_mem | - | reference |"
  echo "| the same, in memory | 1 (no spread) | $limit_mib MiB | $t_refused | - | exit $rc_refused: $(grep -m1 -iE "error|memory" refused.log | cut -c1-160) |"
  echo "| the same, --slab-slices 64 | 1 (no spread) | $limit_mib MiB | $t_disk | $((peak_disk >> 20)) MiB | $(compare disk.json memory.json) |"
  echo "| FDK, in memory | 1 (no spread) | none | $t_fdk_free | - | reference |"
  echo "| FDK, --slab-slices 64 | 1 (no spread) | $limit_mib MiB | $t_fdk | $((peak_fdk >> 20)) MiB | $(compare fdk.json fdk-free.json) |"
  echo
  echo '```'
  grep -E "out of core|slab plan|^rank|sirt with" disk.log | cut -c1-300
  echo '```'
} > "$out"
