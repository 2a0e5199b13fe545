# Sourced by the test daemons' scripts (slurm-single-node.sh, sshd-single-host.sh).
# freePort NAME: a TCP port of 127.0.0.1 nobody listens on (nothing answers a connect), from a
# range away from the usual ones; NAME goes into the message when none is found.
freePort() {
  local port
  for _ in $(seq 1 200); do
    port=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  echo "${1:-free-port}: no free port found" >&2
  return 1
}
