#!/usr/bin/env bash
# Installs the interop matrix's non-npm clients (src/interop/clients/README.md): the Python SDK in a
# project-local virtual environment (.tools/venv, pinned by requirements.txt) and the Go client built
# against the pinned go-sdk (.tools/bin/interop-go); MCP_INTEROP_TOOLS, where the harness looks first, moves
# both. Needs only the package registries (PyPI, the Go module proxy). Does nothing for a client already
# installed at its pinned version. An installed package has `npx mcp-canvas-harness setup-interop` instead
# (src/cli/setup-interop.ts, same stamps), which installs into a per-user folder.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CLIENTS="$ROOT/src/interop/clients"
TOOLS="${MCP_INTEROP_TOOLS:-$ROOT/.tools}"
VENV="$TOOLS/venv"
BIN="$TOOLS/bin"
mkdir -p "$BIN"

# Python: the venv is rebuilt when requirements.txt changed since it was made.
STAMP="$VENV/.requirements"
if ! [ -x "$VENV/bin/python" ] || ! cmp -s "$CLIENTS/requirements.txt" "$STAMP"; then
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
  fi
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$CLIENTS/requirements.txt"
  cp "$CLIENTS/requirements.txt" "$STAMP"
fi
"$VENV/bin/python" -c 'import importlib.metadata as m; print("setup-interop: python client, mcp", m.version("mcp"))'

# Go: rebuilt when its sources changed since the last build.
GO_STAMP="$BIN/.interop-go.sum"
GO_SUM="$(cat "$CLIENTS/go-client/go.mod" "$CLIENTS/go-client/go.sum" "$CLIENTS/go-client/main.go" | sha256sum | cut -d' ' -f1)"
if ! [ -x "$BIN/interop-go" ] || [ "$(cat "$GO_STAMP" 2>/dev/null)" != "$GO_SUM" ]; then
  command -v go >/dev/null || { echo "setup-interop: Go is needed (apt-get install golang-go)" >&2; exit 1; }
  (cd "$CLIENTS/go-client" && CGO_ENABLED=0 go build -trimpath -o "$BIN/interop-go" .)
  echo "$GO_SUM" > "$GO_STAMP"
fi
echo "setup-interop: go client, $(grep 'modelcontextprotocol/go-sdk' "$CLIENTS/go-client/go.mod" | xargs)"
