#!/usr/bin/env bash
# A real OpenSSH server on this machine for the cluster tests' ssh route (tests/slurm): sshd of
# Debian's openssh-server on a free port of 127.0.0.1, with its own host key, a client key allowed
# to log in as the current user, its config, pid file and log all under DIR; no systemd.
#
#   sshd-single-host.sh start DIR   starts it and waits until it accepts a login; prints
#                                   TOMOWB_CLUSTER_SSH=DIR/ssh and TOMOWB_CLUSTER_SCP=DIR/scp
#   sshd-single-host.sh stop DIR    stops it (by its pid file)
#   sshd-single-host.sh check       exit 0 when sshd, ssh, scp and ssh-keygen are installed
#
# The host to give a profile is "tomowb-test-login": DIR/ssh_config (which the two wrappers
# DIR/ssh and DIR/scp pass to ssh and scp with -F) names its address, port, key and known-hosts
# file, as a user's ~/.ssh/config would for a real login node. SLURM_CONF, when set at the start,
# is set in every session (sshd's SetEnv), as a cluster's login node has its own in /etc.
set -euo pipefail

usage() {
  echo "usage: $0 start DIR | stop DIR | check" >&2
  exit 2
}

sshd=/usr/sbin/sshd

check() {
  local missing=()
  [ -x "$sshd" ] || missing+=(sshd)
  for p in ssh scp ssh-keygen; do command -v "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if ((${#missing[@]})); then
    echo "sshd-single-host: not installed: ${missing[*]} (scripts/setup.sh installs" \
      "openssh-server)" >&2
    return 1
  fi
}

# freePort: tests/support/free-port.sh
source "$(dirname "${BASH_SOURCE[0]}")/free-port.sh"

start() {
  local dir
  dir=$(mkdir -p "$1" && cd "$1" && pwd)
  check
  # sshd's privilege separation folder (made by the service's start, which does not run here).
  mkdir -p /run/sshd && chmod 0755 /run/sshd
  rm -f "$dir/host_key" "$dir/host_key.pub" "$dir/client_key" "$dir/client_key.pub"
  ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key"
  ssh-keygen -q -t ed25519 -N '' -f "$dir/client_key"
  cp "$dir/client_key.pub" "$dir/authorized_keys"
  chmod 600 "$dir/authorized_keys" "$dir/client_key" "$dir/host_key"
  local port user
  port=$(freePort sshd-single-host)
  user=$(id -un)
  {
    echo "Port $port"
    echo "ListenAddress 127.0.0.1"
    echo "HostKey $dir/host_key"
    echo "PidFile $dir/sshd.pid"
    echo "AuthorizedKeysFile $dir/authorized_keys"
    echo "PubkeyAuthentication yes"
    echo "PasswordAuthentication no"
    echo "KbdInteractiveAuthentication no"
    echo "PermitRootLogin prohibit-password"
    echo "AllowUsers $user"
    echo "UsePAM no"
    echo "StrictModes no"  # DIR is under /tmp or the build folder
    echo "Subsystem sftp internal-sftp"
    [ -z "${SLURM_CONF:-}" ] || echo "SetEnv SLURM_CONF=$SLURM_CONF"
  } > "$dir/sshd_config"
  {
    echo "Host tomowb-test-login"
    echo "  HostName 127.0.0.1"
    echo "  Port $port"
    echo "  User $user"
    echo "  IdentityFile $dir/client_key"
    echo "  IdentitiesOnly yes"
    echo "  UserKnownHostsFile $dir/known_hosts"
    echo "  StrictHostKeyChecking accept-new"
    echo "  LogLevel ERROR"
  } > "$dir/ssh_config"
  for program in ssh scp; do
    printf '#!/bin/sh\nexec %s -F %q "$@"\n' "$program" "$dir/ssh_config" > "$dir/$program"
    chmod +x "$dir/$program"
  done
  "$sshd" -t -f "$dir/sshd_config"
  "$sshd" -f "$dir/sshd_config" -E "$dir/sshd.log"
  for _ in $(seq 1 100); do
    if "$dir/ssh" -o BatchMode=yes -o ConnectTimeout=2 tomowb-test-login true 2>/dev/null; then
      echo "TOMOWB_CLUSTER_SSH=$dir/ssh"
      echo "TOMOWB_CLUSTER_SCP=$dir/scp"
      return 0
    fi
    sleep 0.1
  done
  echo "sshd-single-host: sshd did not accept a login within 10 s; its log:" >&2
  tail -n 20 "$dir/sshd.log" >&2 || true
  return 1
}

stop() {
  local dir=$1
  if [ -s "$dir/sshd.pid" ] && kill -0 "$(cat "$dir/sshd.pid")" 2>/dev/null; then
    kill "$(cat "$dir/sshd.pid")" 2>/dev/null || true
  fi
  rm -f "$dir/sshd.pid"
}

case "${1:-}" in
  start) [ $# -eq 2 ] || usage; start "$2" ;;
  stop) [ $# -eq 2 ] || usage; stop "$2" ;;
  check) check ;;
  *) usage ;;
esac
