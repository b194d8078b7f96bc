#!/usr/bin/env bash
# Installs everything the project needs on a fresh Debian machine (run as root): system packages,
# npm dependencies (better-sqlite3 is compiled here), wrk, the pinned k6, the interop matrix's Python and Go clients, the container runtime and its local base image.
set -euo pipefail
cd "$(dirname "$0")/.."

# wrk: the reference load generator that `npm run bench:load` holds our autocannon runner against.
# golang-go: only when no Go is on the PATH; k6 is built from its Go module below.
# openssl: test/harness/https-target.test.ts makes a self-signed certificate with it.
if ! command -v make >/dev/null || ! command -v g++ >/dev/null || ! command -v python3 >/dev/null || ! command -v wrk >/dev/null || ! command -v go >/dev/null || ! command -v openssl >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential python3 wrk openssl
  command -v go >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go
fi

# node-gyp compiles better-sqlite3 against the installed Node's headers instead of downloading them.
if [ -d /usr/include/node ]; then export npm_config_nodedir=/usr; fi
npm ci --no-audit --no-fund
# Compiled once: every command runs node on dist/ (tsc -p tsconfig.build.json).
npm run --silent build

bash scripts/setup-browser.sh
bash scripts/setup-containers.sh
bash scripts/install-k6.sh >/dev/null
bash scripts/setup-interop.sh
bash scripts/setup-third-party.sh
bash scripts/build-base-image.sh
# Last: the reference image of these sources, which the container tests run (nothing to do when it is there).
npm run --silent build:image
