#!/bin/sh
# Installs hyparquet under internal/interop/parquet for the Parquet
# interoperability test (sinks/parquet TestHyparquetReadsDayFiles).
set -e
dir="$(cd "$(dirname "$0")/../.." && pwd)/internal/interop/parquet"
if [ -d "$dir/node_modules/hyparquet" ]; then
	exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "parquet.sh: npm is missing; install Node.js 18+ and npm to run the Parquet interoperability test" >&2
	exit 1
fi
cd "$dir"
if ! npm ci --no-audit --no-fund; then
	echo "parquet.sh: npm ci failed in $dir (is the npm registry reachable?)" >&2
	exit 1
fi
