#!/usr/bin/env bash
# Builds the third-party test targets (fixtures/third-party/README.md): the Go server against the pinned go-sdk
# (.tools/bin/third-party-go). The Python server runs on the interop venv (.tools/venv, made by
# scripts/setup-interop.sh) and needs nothing more. Needs only the Go module proxy (the go-sdk version is the
# interop Go client's, so nothing new is downloaded). Does nothing when the build is up to date.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SRC="$ROOT/fixtures/third-party/go"
BIN="$ROOT/.tools/bin"
mkdir -p "$BIN"

# Go: rebuilt when its sources changed since the last build.
GO_STAMP="$BIN/.third-party-go.sum"
GO_SUM="$(cat "$SRC/go.mod" "$SRC/go.sum" "$SRC/main.go" | sha256sum | cut -d' ' -f1)"
if ! [ -x "$BIN/third-party-go" ] || [ "$(cat "$GO_STAMP" 2>/dev/null)" != "$GO_SUM" ]; then
  command -v go >/dev/null || { echo "setup-third-party: Go is needed (apt-get install golang-go)" >&2; exit 1; }
  (cd "$SRC" && CGO_ENABLED=0 go build -trimpath -o "$BIN/third-party-go" .)
  echo "$GO_SUM" > "$GO_STAMP"
fi
echo "setup-third-party: go server, $(grep 'modelcontextprotocol/go-sdk' "$SRC/go.mod" | xargs)"
