#!/usr/bin/env bash
# The official x402 TypeScript client (@x402/fetch, @x402/evm, viem) for the
# interoperability test query/paywall_interop_test.go, installed from npm into
# internal/interop/x402/node_modules from the committed lock file. Idempotent.
set -euo pipefail
dir="$(cd "$(dirname "$0")/../../internal/interop/x402" && pwd)"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "x402.sh: node and npm are required (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
if [ -d "$dir/node_modules/@x402/fetch" ] && [ -d "$dir/node_modules/@x402/evm" ] && [ -d "$dir/node_modules/viem" ]; then
  exit 0
fi
cd "$dir"
if ! npm ci --no-audit --no-fund; then
  echo "x402.sh: npm ci failed in $dir" >&2
  exit 1
fi
