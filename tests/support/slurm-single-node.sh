#!/usr/bin/env bash
# A real single-node SLURM cluster for the cluster tests (tests/slurm, docs/scale.md "Cluster"):
# munged, slurmctld and slurmd of Debian's slurm-wlm, every file of theirs (key, socket, config,
# state, spool, logs, pids) under DIR, on free ports, run as root without systemd.
#
#   slurm-single-node.sh start DIR   starts it (or finds it running) and waits until the node is
#                                    idle; prints SLURM_CONF=DIR/slurm.conf
#   slurm-single-node.sh start-if-installed DIR   the same, or a message and exit 0 without SLURM
#   slurm-single-node.sh stop DIR    stops the daemons it started (by their pid files)
#   slurm-single-node.sh check       exit 0 when the SLURM and munge programs are installed
#
# Clients (sbatch, squeue, scancel, sinfo) find the cluster through SLURM_CONF=DIR/slurm.conf.
# The partition is "test" (the default); the node has every core of this machine. There is no
# slurmdbd, so sacct says accounting is disabled: the clients fall back on squeue.
set -euo pipefail
# hwloc 2.9's GL component (slurmd's topology) connects to X displays :0, :1, ... when it finds
# one; a GUI test's Xvfb ending under it kills the daemon (X connection broken).
export HWLOC_COMPONENTS=-gl

programs=(munged mungekey slurmctld slurmd sbatch squeue scancel sinfo srun)

usage() {
  echo "usage: $0 start DIR | start-if-installed DIR | stop DIR | check" >&2
  exit 2
}

check() {
  local missing=()
  for p in "${programs[@]}"; do
    command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "slurm-single-node: not installed: ${missing[*]} (scripts/setup.sh installs slurmctld," \
      "slurmd, slurm-client and munge)" >&2
    return 1
  fi
}

pidAlive() {  # pid file
  [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

# freePort: tests/support/free-port.sh
source "$(dirname "${BASH_SOURCE[0]}")/free-port.sh"

stopDaemons() {
  local dir=$1 pids=()
  for name in slurmd slurmctld munged; do
    if pidAlive "$dir/$name.pid"; then
      pids+=("$(cat "$dir/$name.pid")")
      kill "${pids[-1]}" 2>/dev/null || true
    fi
  done
  # slurmd and slurmctld take a few seconds to save their state and go; then SIGKILL.
  for _ in $(seq 1 100); do
    local alive=0
    for pid in "${pids[@]+"${pids[@]}"}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]+"${pids[@]}"}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -f "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid
}

showLogs() {
  local dir=$1
  for log in munged.log slurmctld.log slurmd.log; do
    [ -f "$dir/$log" ] && { echo "--- $dir/$log (last lines)" >&2; tail -n 15 "$dir/$log" >&2; }
  done
  return 0
}

start() {
  local dir=$1
  check
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd -P)
  export SLURM_CONF="$dir/slurm.conf"
  if pidAlive "$dir/munged.pid" && pidAlive "$dir/slurmctld.pid" && pidAlive "$dir/slurmd.pid" &&
    sinfo -h -o %T 2>/dev/null | grep -q idle; then
    echo "SLURM_CONF=$SLURM_CONF"
    return 0
  fi
  stopDaemons "$dir"
  # munged refuses a socket, key or log folder that others may write to.
  chmod 700 "$dir"
  mkdir -p "$dir/state" "$dir/spool"
  rm -f "$dir"/*.log
  if [ ! -s "$dir/munge.key" ]; then
    mungekey --create --keyfile="$dir/munge.key" 2>/dev/null ||
      dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
  fi
  chmod 600 "$dir/munge.key"
  # --force: munged otherwise refuses to run as root beside a stale socket.
  munged --force --socket="$dir/munge.socket" --key-file="$dir/munge.key" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" ||
    { showLogs "$dir"; echo "slurm-single-node: munged did not start" >&2; return 1; }

  local host cpus ctldPort slurmdPort
  host=$(hostname -s)
  cpus=$(nproc)
  ctldPort=$(freePort slurm-single-node)
  slurmdPort=$(freePort slurm-single-node)
  while [ "$slurmdPort" = "$ctldPort" ]; do slurmdPort=$(freePort slurm-single-node); done
  cat >"$dir/slurm.conf" <<EOF
# Written by tests/support/slurm-single-node.sh: one node, everything under $dir.
ClusterName=tomowbtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctldPort
SlurmdPort=$slurmdPort
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=600
KillWait=5
# The node may have to be told apart from this machine's real daemons (if any): no cgroups.
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=256 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  # -c: a clean start (no jobs or node state of an earlier cluster in this folder); -i: ignore
  # errors in the saved state.
  slurmctld -c -i -f "$dir/slurm.conf" ||
    { showLogs "$dir"; echo "slurm-single-node: slurmctld did not start" >&2; return 1; }
  slurmd -f "$dir/slurm.conf" -N "$host" ||
    { showLogs "$dir"; echo "slurm-single-node: slurmd did not start" >&2; return 1; }
  for _ in $(seq 1 300); do
    if sinfo -h -o %T 2>/dev/null | grep -q idle; then
      echo "SLURM_CONF=$SLURM_CONF"
      return 0
    fi
    sleep 0.1
  done
  echo "slurm-single-node: the node did not become idle within 30 s; sinfo says:" >&2
  sinfo >&2 || true
  showLogs "$dir"
  return 1
}

case "${1:-}" in
  start) [ $# -eq 2 ] || usage; start "$2" ;;
  # For ctest's fixture: a machine without SLURM is not an error here (the tests skip, saying so).
  start-if-installed)
    [ $# -eq 2 ] || usage
    if check; then start "$2"; else echo "slurm-single-node: SLURM not installed; the slurm tests skip"; fi
    ;;
  stop) [ $# -eq 2 ] || usage; stopDaemons "$2" ;;
  check) check ;;
  *) usage ;;
esac
