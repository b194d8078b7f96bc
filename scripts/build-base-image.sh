#!/usr/bin/env bash
# Builds the local base image the Dockerfile uses where no registry is
# reachable: a debootstrap minbase of this machine's Debian release, plus this
# machine's own node and npm (same release, so the libraries match), plus a
# `node` user (uid 1000) as in the official node images. Cached: does nothing
# when the image exists and holds the same node version. Run as root.
# Usage: scripts/build-base-image.sh [--rebuild]
# Env:   BASE_IMAGE (default localhost/canvas-node-base), CONTAINERS_CONF
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
image="${BASE_IMAGE:-localhost/canvas-node-base}"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$repo_root/.tools/containers/containers.conf}"

die() { echo "error: $*" >&2; exit 1; }
log() { echo "build-base-image: $*" >&2; }

rebuild=false
case "${1:-}" in
  '') ;;
  --rebuild) rebuild=true ;;
  *) echo "usage: $0 [--rebuild]" >&2; exit 2 ;;
esac

[[ "$(id -u)" -eq 0 ]] || die "debootstrap needs root; run $0 as root"
for tool in podman debootstrap; do
  command -v "$tool" >/dev/null || die "$tool is missing; run scripts/setup-containers.sh first"
done
[[ -f "$CONTAINERS_CONF" ]] || die "$CONTAINERS_CONF not found; run scripts/setup-containers.sh first"
node_bin="$(command -v node)" || die "node is not installed on this machine"
node_version="$("$node_bin" --version)"
npm_bin="$(command -v npm)" || die "npm is not installed on this machine"
npm_dir="$(dirname "$(dirname "$(readlink -f "$npm_bin")")")" # .../node_modules/npm

if ! $rebuild && podman image exists "$image"; then
  have="$(podman image inspect --format '{{index .Config.Labels "org.nodejs.version"}}' "$image")"
  if [[ "$have" == "$node_version" ]]; then
    log "$image exists (node $have); nothing to do (--rebuild forces a rebuild)"
    exit 0
  fi
  log "$image holds node '$have' but this machine has $node_version; rebuilding"
fi

# shellcheck source=/dev/null
codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
[[ -n "$codename" ]] || die "cannot read VERSION_CODENAME from /etc/os-release"

# The Debian mirror this machine already uses: the first enabled `deb` source
# for $codename in its apt sources (deb822 .sources or one-line .list files).
# Read at run time so that no mirror host name lives in the repository.
find_mirror() {
  local files=()
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [[ -f "$f" ]] && files+=("$f")
  done
  [[ ${#files[@]} -gt 0 ]] || return 0
  awk -v suite="$codename" '
    function flush() {
      if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && enabled != "no" && uris != "" && !found) {
        split(uris, u, " "); print u[1]; found = 1
      }
      types = ""; uris = ""; suites = ""; enabled = ""
    }
    FILENAME ~ /\.sources$/ {
      if (FNR == 1) flush()
      if ($0 ~ /^[ \t]*$/) { flush(); next }
      if ($0 ~ /^#/) next
      key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
      if (key == "types") types = $0
      else if (key == "uris") uris = $0
      else if (key == "suites") suites = $0
      else if (key == "enabled") enabled = tolower($0)
      next
    }
    /^deb[ \t]/ && !found {
      line = $0; sub(/\[[^]]*\]/, "", line); n = split(line, w, /[ \t]+/)
      if (n >= 3 && w[3] == suite) { print w[2]; found = 1 }
    }
    END { flush() }
  ' "${files[@]}"
}
mirror="$(find_mirror)"
[[ -n "$mirror" ]] || die "no enabled 'deb' source for $codename found in /etc/apt/sources.list{,.d/}; cannot pick a Debian mirror"

work="$(mktemp -d /var/tmp/canvas-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

started=$SECONDS
log "debootstrap --variant=minbase $codename from $mirror (a minute or two)"
if ! debootstrap --variant=minbase "$codename" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1; then
  tail -n 30 "$work/debootstrap.log" >&2
  die "debootstrap failed (log above)"
fi

log "adding node $node_version and npm from this machine, and the node user"
install -m 0755 "$node_bin" "$rootfs/usr/bin/node"
mkdir -p "$rootfs/usr/lib/node_modules"
cp -a "$npm_dir" "$rootfs/usr/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/bin/npx"
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$rootfs" /bin/sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --create-home --shell /bin/bash node'
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$rootfs" /usr/bin/node -e 'process.exit(0)' || die "the copied node does not run inside the new root file system"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/tmp/* "$rootfs"/var/log/*.log

log "importing as $image"
tar --numeric-owner -C "$rootfs" -c . | podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "LABEL org.nodejs.version=$node_version" \
  --change 'CMD ["node"]' \
  - "$image" >/dev/null
log "built $image (node $node_version, $(podman image inspect --format '{{.Size}}' "$image" | numfmt --to=si)B) in $((SECONDS - started)) s"
