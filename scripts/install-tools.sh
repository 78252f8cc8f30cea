#!/usr/bin/env bash
# Installs the third-party tools the tests drive, from Debian packages, when
# they are missing: kcat (reads our topics), protoc (decodes them from the
# .proto file). Fails loudly when it cannot.
set -euo pipefail
need=()
command -v kcat >/dev/null 2>&1 || need+=(kcat)
command -v protoc >/dev/null 2>&1 || need+=(protobuf-compiler)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
echo "installing missing tools: ${need[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${need[@]}"
command -v kcat >/dev/null && command -v protoc >/dev/null || { echo "cannot install kcat/protoc" >&2; exit 1; }
