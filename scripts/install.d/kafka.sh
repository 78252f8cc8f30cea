#!/usr/bin/env bash
# Apache Kafka for the cluster suite (internal/cluster): Java 17+ and Maven
# from Debian packages when missing, then Kafka itself from Maven Central into
# the cache of scripts/kafka-cluster.sh (outside the repository). Idempotent;
# fails loudly when Kafka cannot be had, so the suite never skips silently.
set -euo pipefail
cd "$(dirname "$0")/../.."
need=()
command -v java >/dev/null 2>&1 || need+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
command -v python3 >/dev/null 2>&1 || need+=(python3)
if [ ${#need[@]} -ne 0 ]; then
  echo "kafka.sh: installing ${need[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
scripts/kafka-cluster.sh fetch >/dev/null
