#!/usr/bin/env bash
# Prepares this machine to build and run the project's containers with podman
# (no Docker engine needed). Idempotent; run as root.
#   - installs podman, runc, debootstrap and podman-compose if missing, and the
#     CNI dnsname plugin, without which compose services cannot find each other
#     by name (Debian's podman 4.3 uses CNI networks);
#   - writes .tools/containers/containers.conf, a podman configuration that
#     works in sandboxes where crun and systemd cgroups do not;
#   - prints the environment exports the other scripts and tests need.
# Usage: sudo scripts/setup-containers.sh   then: eval "$(scripts/setup-containers.sh --print-env)"
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
conf_dir="$repo_root/.tools/containers"
conf_file="$conf_dir/containers.conf"

print_env() {
  cat <<ENV
export CONTAINERS_CONF=$conf_file
export DOCKER_HOST=unix:///tmp/podman.sock
export TESTCONTAINERS_RYUK_DISABLED=true
export TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1
ENV
}

if [[ "${1:-}" == "--print-env" ]]; then
  print_env
  exit 0
elif [[ $# -gt 0 ]]; then
  echo "usage: $0 [--print-env]" >&2
  exit 2
fi

if [[ "$(id -u)" -ne 0 ]]; then
  echo "error: $0 installs packages and must run as root" >&2
  exit 1
fi

# Packages: install only what is missing, so a prepared machine costs nothing.
missing=()
for pkg in podman runc debootstrap podman-compose golang-github-containernetworking-plugin-dnsname; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "setup-containers: installing ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
else
  echo "setup-containers: podman, runc, debootstrap, podman-compose and dnsname already installed" >&2
fi

# crun fails here (setrlimit RLIMIT_NOFILE, then "cgroups in hybrid mode not
# supported"): use runc, the cgroupfs manager and no default ulimits. Setting the
# runtime in the file (not only with --runtime) also covers podman-compose,
# which calls plain `podman`. No systemd/journald: events and logs go to files.
mkdir -p "$conf_dir"
tmp="$(mktemp "$conf_dir/containers.conf.XXXXXX")"
cat >"$tmp" <<'CONF'
# Written by scripts/setup-containers.sh; do not edit (it is rewritten on each run).
[containers]
default_ulimits = []
log_driver = "k8s-file"

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
mv "$tmp" "$conf_file"
echo "setup-containers: wrote $conf_file" >&2

export CONTAINERS_CONF="$conf_file"
if ! podman info --format '{{.Host.OCIRuntime.Name}} {{.Store.GraphDriverName}}' >/dev/null 2>&1; then
  echo "error: podman does not work with $conf_file; try: CONTAINERS_CONF=$conf_file podman info" >&2
  exit 1
fi
echo "setup-containers: podman $(podman version --format '{{.Client.Version}}') ready ($(podman info --format 'runtime {{.Host.OCIRuntime.Name}}, storage {{.Store.GraphDriverName}}'))" >&2
echo "# Add these to the environment (or: eval \"\$($0 --print-env)\"):" >&2
print_env
