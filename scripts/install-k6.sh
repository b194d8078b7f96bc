#!/usr/bin/env bash
# Installs the pinned k6 into the project's own .tools/bin (k6 is a Go module: no npm or Debian package
# carries it). Does nothing when that version is already there. Prints the binary's path.
set -euo pipefail
K6_MODULE="go.k6.io/k6"
K6_VERSION="v1.8.1"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/.tools/bin"
K6="$BIN/k6"
if [ -x "$K6" ] && "$K6" version 2>/dev/null | grep -q "${K6_VERSION}"; then
  echo "$K6"
  exit 0
fi
command -v go >/dev/null || { echo "install-k6: Go is needed (apt-get install golang-go, or https://go.dev/dl/)" >&2; exit 1; }
mkdir -p "$BIN"
echo "install-k6: building ${K6_MODULE}@${K6_VERSION} (a few minutes the first time)" >&2
GOBIN="$BIN" CGO_ENABLED=0 go install "${K6_MODULE}@${K6_VERSION}" >&2
"$K6" version >&2
echo "$K6"
