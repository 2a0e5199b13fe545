#!/usr/bin/env bash
# A stand-in for ssh in the cluster tests (TOMOWB_CLUSTER_SSH): takes ssh's options (-o X, -q,
# -T), then the host, then runs the remote command string here with sh, as ssh hands it to the
# remote login shell. It lets the ssh route of recon/cluster/SlurmClient run against the local
# test cluster where no sshd runs.
set -euo pipefail
while [ $# -gt 0 ]; do
  case "$1" in
    -o | -p | -i | -l) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "fake-ssh: usage: fake-ssh [options] host command" >&2; exit 255; }
shift  # the host
exec sh -c "$*"
