#!/usr/bin/env bash
# Debian's Chromium for the browser tests of the pages
# (internal/interop/browser): Playwright drives /usr/bin/chromium, it never
# downloads a browser. Installs the Debian package when the binary is
# missing and fails loudly when it cannot. Idempotent.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "chromium.sh: installing Chromium from Debian packages"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium >/dev/null
[ -x /usr/bin/chromium ] || { echo "chromium.sh: /usr/bin/chromium is still missing after apt-get install chromium" >&2; exit 1; }
