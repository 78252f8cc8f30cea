#!/usr/bin/env bash
# Installs the third-party tools the tests drive, from Debian packages, when
# they are missing: kcat (reads our topics), protoc (decodes them from the
# .proto file). Then runs every scripts/install.d/*.sh (npm clients and other
# tools of later features). Fails loudly when it cannot.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v kcat >/dev/null 2>&1 || need+=(kcat)
command -v protoc >/dev/null 2>&1 || need+=(protobuf-compiler)
if [ ${#need[@]} -ne 0 ]; then
  echo "installing missing tools: ${need[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need[@]}"
  command -v kcat >/dev/null && command -v protoc >/dev/null || { echo "cannot install kcat/protoc" >&2; exit 1; }
fi
for f in scripts/install.d/*.sh; do
  [ -e "$f" ] || continue
  bash "$f"
done
