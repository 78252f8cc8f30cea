#!/usr/bin/env bash
# PostgreSQL for the ledger conformance suite (query/paywall/ledger): a local server on
# 127.0.0.1:5432 that lets user postgres in without a password (trust) from
# 127.0.0.1. Starts the Debian cluster when it is installed but stopped,
# installs it from Debian packages when missing, and fails loudly otherwise.
# Idempotent.
set -euo pipefail

ready() { pg_isready -q -h 127.0.0.1 -p 5432 >/dev/null 2>&1; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if command -v pg_isready >/dev/null 2>&1 && ready; then
  exit 0
fi

if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
  echo "postgres.sh: installing PostgreSQL from Debian packages"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq postgresql >/dev/null
fi

version="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)"
if [ -z "$version" ] || [ ! -d "/etc/postgresql/$version/main" ]; then
  echo "postgres.sh: no PostgreSQL cluster 'main' under /etc/postgresql after install" >&2
  exit 1
fi

# Trust local TCP connections from 127.0.0.1 (tests connect as postgres
# without a password). The rule goes first so it wins over Debian's defaults.
hba="/etc/postgresql/$version/main/pg_hba.conf"
if ! grep -Eq '^[[:space:]]*host[[:space:]]+all[[:space:]]+all[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$hba"; then
  echo "postgres.sh: adding a trust rule for 127.0.0.1 to $hba"
  $SUDO sed -i '1i host all all 127.0.0.1/32 trust' "$hba"
fi

status="$(pg_lsclusters -h 2>/dev/null | awk -v v="$version" '$1 == v && $2 == "main" {print $4}')"
if [ "$status" = "online" ]; then
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main reload
else
  echo "postgres.sh: starting PostgreSQL $version/main"
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main start
fi

for _ in $(seq 1 30); do
  if ready; then
    exit 0
  fi
  sleep 1
done
echo "postgres.sh: PostgreSQL $version/main did not become ready on 127.0.0.1:5432" >&2
pg_lsclusters >&2 || true
exit 1
