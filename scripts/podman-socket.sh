#!/usr/bin/env bash
# Runs podman's Docker-compatible API service on a unix socket, in the
# background, for testcontainers and other Docker clients.
# Usage: scripts/podman-socket.sh start|stop|status
#   start   starts the service (unless it already answers) and prints the exports
#   stop    stops the service started by `start` (by its pid file)
# Env: PODMAN_SOCKET (default /tmp/podman.sock), CONTAINERS_CONF
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
socket="${PODMAN_SOCKET:-/tmp/podman.sock}"
pid_file="$socket.pid"
log_file="$socket.log"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$repo_root/.tools/containers/containers.conf}"

die() { echo "error: $*" >&2; exit 1; }
log() { echo "podman-socket: $*" >&2; }

# $1: seconds to wait for the answer. A service that is there but busy (building an image beside a test
# run) can take seconds; one that is not there refuses at once, so patience costs nothing then.
answers() {
  [[ -S "$socket" ]] && curl -sf --max-time "${1:-30}" --unix-socket "$socket" http://podman/_ping >/dev/null 2>&1
}

running_pid() {
  local pid
  [[ -f "$pid_file" ]] || return 1
  pid="$(cat "$pid_file")"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

print_env() {
  cat <<ENV
export CONTAINERS_CONF=$CONTAINERS_CONF
export DOCKER_HOST=unix://$socket
export TESTCONTAINERS_RYUK_DISABLED=true
export TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1
ENV
}

start() {
  command -v podman >/dev/null || die "podman is not installed; run scripts/setup-containers.sh first"
  command -v curl >/dev/null || die "curl is needed to probe the socket"
  [[ -f "$CONTAINERS_CONF" ]] || die "$CONTAINERS_CONF not found; run scripts/setup-containers.sh first"
  if answers; then
    log "already answering on $socket${pid:+ (pid $pid)}"
    print_env
    return
  fi
  if pid="$(running_pid)"; then
    die "pid $pid from $pid_file is alive but $socket does not answer; run '$0 stop' first"
  fi
  rm -f "$socket"
  # --time=0: never exit for idleness; the caller stops it with `stop`.
  nohup podman --runtime runc system service --time=0 "unix://$socket" >"$log_file" 2>&1 &
  echo $! >"$pid_file"
  for _ in $(seq 1 100); do
    if answers 2; then
      log "started (pid $(cat "$pid_file")) on $socket; log: $log_file"
      print_env
      return
    fi
    kill -0 "$(cat "$pid_file")" 2>/dev/null || { tail -n 20 "$log_file" >&2; rm -f "$pid_file"; die "podman system service exited (log above)"; }
    sleep 0.1
  done
  die "podman system service did not answer on $socket within 10 s; log: $log_file"
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$pid_file"
    log "not running (no live pid in $pid_file)"
    return
  fi
  kill "$pid"
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid did not stop on SIGTERM within 5 s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pid_file" "$socket"
  log "stopped (pid $pid)"
}

case "${1:-}" in
  start) pid="$(running_pid || true)"; start ;;
  stop) stop ;;
  status)
    if answers; then log "answering on $socket"; print_env; else log "not answering on $socket"; exit 1; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
