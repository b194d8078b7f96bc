#!/usr/bin/env bash
# Installs everything the project needs on a fresh Debian machine (run as root): system packages,
# npm dependencies (better-sqlite3 is compiled here), the container runtime and its local base image.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v make >/dev/null || ! command -v g++ >/dev/null || ! command -v python3 >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential python3
fi

# node-gyp compiles better-sqlite3 against the installed Node's headers instead of downloading them.
if [ -d /usr/include/node ]; then export npm_config_nodedir=/usr; fi
npm ci --no-audit --no-fund

bash scripts/setup-browser.sh
bash scripts/setup-containers.sh
bash scripts/build-base-image.sh
