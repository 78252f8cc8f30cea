#!/usr/bin/env bash
# Playwright (playwright-core: the driver only, no browser download) and
# axe-core for the browser tests of the pages (internal/e2e/browser_test.go,
# internal/interop/browser), from the lock file, when missing. The browser
# is Debian's Chromium (chromium.sh). Needs node and npm; fails loudly.
set -euo pipefail
dir="$(dirname "$0")/../../internal/interop/browser"
if [ -f "$dir/node_modules/playwright-core/package.json" ] && [ -f "$dir/node_modules/axe-core/axe.min.js" ]; then exit 0; fi
command -v npm >/dev/null || { echo "playwright.sh: cannot install Playwright: npm is missing (apt-get install nodejs npm)" >&2; exit 1; }
echo "playwright.sh: installing playwright-core and axe-core into $dir"
(cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error) ||
  { echo "playwright.sh: cannot install playwright-core and axe-core from npm" >&2; exit 1; }
[ -f "$dir/node_modules/playwright-core/package.json" ] || { echo "playwright.sh: playwright-core is still missing after npm ci" >&2; exit 1; }
