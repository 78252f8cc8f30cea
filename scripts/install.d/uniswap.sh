#!/usr/bin/env bash
# The compiled Uniswap v3 contracts (@uniswap/v3-core, @uniswap/v3-periphery)
# that internal/uniswaptest deploys on go-ethereum's simulated backend, for
# the pool-state tests of pipeline/sources/evmdex. Installed from npm into
# internal/uniswaptest/node_modules (git-ignored) from the committed lock
# file; only the artifacts' JSON is read. Idempotent.
set -euo pipefail
dir="$(cd "$(dirname "$0")/../../internal/uniswaptest" && pwd)"
core="$dir/node_modules/@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json"
periphery="$dir/node_modules/@uniswap/v3-periphery/artifacts/contracts/lens/TickLens.sol/TickLens.json"
if [ -f "$core" ] && [ -f "$periphery" ]; then
  exit 0
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "uniswap.sh: node and npm are required (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
cd "$dir"
if ! npm ci --no-audit --no-fund; then
  echo "uniswap.sh: npm ci failed in $dir" >&2
  exit 1
fi
if [ ! -f "$core" ] || [ ! -f "$periphery" ]; then
  echo "uniswap.sh: the Uniswap artifacts are missing after npm ci in $dir" >&2
  exit 1
fi
