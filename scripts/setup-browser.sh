#!/usr/bin/env bash
# Installs Debian's Chromium for the report render test (test/harness/report-html-render.test.ts), which
# opens report.html headless. Nothing else uses a browser; npm never downloads one. Run as root.
set -euo pipefail

if ! command -v chromium >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
