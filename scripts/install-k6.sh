#!/usr/bin/env bash
# Prints the path of the k6 to run: one on PATH of a supported version, else the pinned one in the project's
# own .tools/bin, built when missing (k6 is a Go module: no npm or Debian package carries it).
set -euo pipefail
K6_MODULE="go.k6.io/k6"
K6_VERSION="v1.8.1"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/.tools/bin"
K6="$BIN/k6"
# A k6 already on PATH of the supported major version (the script uses k6 v1's APIs) is used as it is:
# grafana/setup-k6-action, a package or an image put it there on purpose.
if ON_PATH="$(command -v k6)" && [ "$ON_PATH" != "$K6" ] && [[ "$("$ON_PATH" version 2>/dev/null || true)" =~ ^k6\ v1\. ]]; then
  echo "$ON_PATH"
  exit 0
fi
if [ -x "$K6" ] && "$K6" version 2>/dev/null | grep -q "${K6_VERSION}"; then
  echo "$K6"
  exit 0
fi
command -v go >/dev/null || { echo "install-k6: Go is needed (apt-get install golang-go, or https://go.dev/dl/)" >&2; exit 1; }
mkdir -p "$BIN"
# Say what happens and for how long: a first build fetches and compiles k6 (2-5 minutes on 2 cores); a later
# one reuses Go's module and build caches.
echo "install-k6: no k6 v1 on PATH; building ${K6_MODULE}@${K6_VERSION} with $(go version | cut -d' ' -f3) into ${BIN} (2-5 minutes the first time, less with Go's caches warm)" >&2
STARTED=$SECONDS
GOBIN="$BIN" CGO_ENABLED=0 go install "${K6_MODULE}@${K6_VERSION}" >&2
echo "install-k6: built $("$K6" version | head -1) in $((SECONDS - STARTED)) s" >&2
echo "$K6"
