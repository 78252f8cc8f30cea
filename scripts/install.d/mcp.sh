#!/usr/bin/env bash
# Installs the official MCP TypeScript SDK that query/mcp_interop_test.go
# drives, from the lock file, when it is missing. Needs node and npm.
set -euo pipefail
dir="$(dirname "$0")/../../internal/interop/mcp"
if [ -d "$dir/node_modules/@modelcontextprotocol/sdk" ]; then exit 0; fi
command -v npm >/dev/null || { echo "cannot install the MCP client: npm is missing (apt-get install nodejs npm)" >&2; exit 1; }
echo "installing the MCP TypeScript SDK into $dir"
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || { echo "cannot install @modelcontextprotocol/sdk from npm" >&2; exit 1; }
