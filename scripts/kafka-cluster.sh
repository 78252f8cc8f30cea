#!/usr/bin/env bash
# A real Apache Kafka cluster on loopback for the tests and benchmarks: three
# KRaft nodes (each one broker and controller) run by the machine's Java 17+,
# no Docker. Kafka itself comes from Maven Central (org.apache.kafka:kafka_2.13
# and its runtime dependencies, checksums checked by Maven) and is cached
# outside the repository.
#
#   kafka-cluster.sh fetch               download Kafka into the cache (idempotent); prints its lib dir
#   kafka-cluster.sh start DIR [N]       format and start N nodes (default 3) under DIR, wait until the
#                                        metadata quorum has a leader and all N brokers are registered;
#                                        prints the bootstrap servers (also in DIR/bootstrap)
#   kafka-cluster.sh kill DIR ID         kill -9 node ID (1..N)
#   kafka-cluster.sh restart DIR ID      start node ID again on its data and wait until it is registered
#   kafka-cluster.sh wait DIR            wait until all N brokers are registered
#   kafka-cluster.sh status DIR          the quorum's status and the registered brokers
#   kafka-cluster.sh stop DIR            stop every node (TERM, then KILL after 15 s); DIR is kept
#
# Ports are picked free at start time (never 9092/9093), so several clusters
# can run on one machine. Environment:
#   KAFKA_VERSION        Kafka version (default 4.1.1; 4.x needs Java 17+ for brokers)
#   MI_KAFKA_CACHE       cache root (default ${XDG_CACHE_HOME:-~/.cache}/mi/kafka)
#   MI_KAFKA_HEAP        heap of each node (default 512m)
#   MI_KAFKA_OWNER_PID   when set, the nodes are killed once that process ends (a test binary
#                        killed with SIGKILL leaves no broker behind)
#   MI_KAFKA_TIMEOUT     seconds to wait for readiness (default 180)
set -euo pipefail

KAFKA_VERSION="${KAFKA_VERSION:-4.1.1}"
LOG4J_VERSION="2.24.3"
CACHE_ROOT="${MI_KAFKA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mi/kafka}"
LIB="$CACHE_ROOT/$KAFKA_VERSION/libs"
HEAP="${MI_KAFKA_HEAP:-512m}"
TIMEOUT="${MI_KAFKA_TIMEOUT:-180}"

die() { echo "kafka-cluster.sh: $*" >&2; exit 1; }

need_java() {
	command -v java >/dev/null 2>&1 || die "java is missing: install a Java 17+ runtime (Debian: apt-get install openjdk-17-jre-headless)"
	local v
	v="$(java -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')"
	[ "${v%%.*}" -ge 17 ] 2>/dev/null || die "Kafka $KAFKA_VERSION brokers need Java 17 or newer; java here is $v"
}

# fetch resolves kafka_2.13, kafka-tools (the metadata quorum command) and a
# log4j binding with Maven into the cache, once. Concurrent callers wait on a
# lock; a half-finished download never becomes the cache.
fetch() {
	if [ -f "$LIB/.complete" ]; then echo "$LIB"; return; fi
	command -v mvn >/dev/null 2>&1 || die "mvn is missing: install Maven (Debian: apt-get install maven) to fetch Kafka from Maven Central"
	mkdir -p "$CACHE_ROOT/$KAFKA_VERSION"
	exec 9>"$CACHE_ROOT/$KAFKA_VERSION/.lock"
	flock 9
	if [ -f "$LIB/.complete" ]; then echo "$LIB"; return; fi
	local work
	work="$(mktemp -d "$CACHE_ROOT/$KAFKA_VERSION/fetch.XXXXXX")"
	cat >"$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>mi.test</groupId><artifactId>kafka-cluster</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$LOG4J_VERSION</version></dependency>
  </dependencies>
</project>
EOF
	echo "kafka-cluster.sh: fetching Apache Kafka $KAFKA_VERSION from Maven Central into $LIB" >&2
	if ! (cd "$work" && mvn -B -q --strict-checksums dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$work/libs" >"$work/mvn.log" 2>&1); then
		cat "$work/mvn.log" >&2
		die "cannot fetch org.apache.kafka:kafka_2.13:$KAFKA_VERSION from Maven Central"
	fi
	[ -f "$work/libs/kafka_2.13-$KAFKA_VERSION.jar" ] || die "Maven finished but kafka_2.13-$KAFKA_VERSION.jar is missing"
	rm -rf "$LIB"
	mv "$work/libs" "$LIB"
	touch "$LIB/.complete"
	rm -rf "$work"
	echo "$LIB"
}

# free_ports prints n TCP ports free on 127.0.0.1, all held open together
# while chosen so they differ.
free_ports() {
	python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

# The short-lived tools (storage format, quorum check) run with the quick
# JIT tier and the serial collector: less CPU to start on a busy machine.
kafka_java() { java -Xshare:auto -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$LIB/*" "$@"; }

# write_config writes DIR/node-ID/server.properties.
write_config() {
	local dir="$1" id="$2" n="$3"
	local port cport
	port="$(cat "$dir/node-$id/port")"
	cport="$(cat "$dir/node-$id/cport")"
	local rf=$((n < 3 ? n : 3)) isr=$((n < 2 ? 1 : 2))
	cat >"$dir/node-$id/server.properties" <<EOF
process.roles=broker,controller
node.id=$id
controller.quorum.voters=$(cat "$dir/voters")
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/node-$id/data
auto.create.topics.enable=false
unclean.leader.election.enable=false
default.replication.factor=$rf
min.insync.replicas=$isr
offsets.topic.replication.factor=$rf
offsets.topic.num.partitions=8
transaction.state.log.replication.factor=$rf
transaction.state.log.min.isr=$isr
transaction.state.log.num.partitions=8
transaction.max.timeout.ms=900000
group.initial.rebalance.delay.ms=0
message.max.bytes=67108864
replica.fetch.max.bytes=67108864
replica.fetch.response.max.bytes=134217728
broker.heartbeat.interval.ms=500
broker.session.timeout.ms=6000
num.network.threads=2
num.io.threads=4
num.replica.fetchers=1
background.threads=4
log.cleaner.threads=1
log.cleaner.dedupe.buffer.size=16777216
log.cleaner.backoff.ms=5000
transaction.abort.timed.out.transaction.cleanup.interval.ms=2000
EOF
}

start_node() {
	local dir="$1" id="$2"
	local nd="$dir/node-$id"
	# A new session: the node is its own process group, killed as one.
	KAFKA_LOG_DIR="$nd" setsid java -Xshare:auto -Xms"$HEAP" -Xmx"$HEAP" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
		-XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
		-Dlog4j2.configurationFile="file:$dir/log4j2.properties" -Dkafka.logs.dir="$nd" \
		-cp "$LIB/*" kafka.Kafka "$nd/server.properties" >>"$nd/stdout.log" 2>&1 </dev/null &
	echo $! >"$nd/pid"
}

node_alive() { local p; p="$(cat "$1/node-$2/pid" 2>/dev/null)" && kill -0 "$p" 2>/dev/null; }

# registered prints how many brokers the cluster's metadata lists.
registered() {
	kcat -b "$(cat "$1/bootstrap")" -L -m 5 2>/dev/null | awk '/ brokers:$/ {print $1; exit}'
}

# wait_registered waits until all brokers are registered. With a second
# argument, a node that exited because its port was taken meanwhile (ports
# are picked free, then bound by Java a few seconds later) makes it return 3
# instead of failing, so the caller can retry on other ports.
wait_registered() {
	local dir="$1" bindretry="${2:-}" n
	n="$(cat "$dir/nodes")"
	local deadline=$((SECONDS + TIMEOUT))
	while [ $SECONDS -lt $deadline ]; do
		for id in $(seq 1 "$n"); do
			if [ ! -f "$dir/node-$id/stopped" ] && ! node_alive "$dir" "$id"; then
				if [ -n "$bindretry" ] && grep -qs "Address already in use" "$dir/node-$id/stdout.log" "$dir/node-$id/server.log"; then
					return 3
				fi
				tail -n 40 "$dir/node-$id/stdout.log" "$dir/node-$id/server.log" >&2 2>/dev/null || true
				die "node $id exited during start (logs above; $dir/node-$id)"
			fi
		done
		if [ "$(registered "$dir")" = "$n" ]; then return 0; fi
		sleep 0.5
	done
	die "the $n brokers did not all register within ${TIMEOUT}s (logs under $dir/node-*)"
}

# quorum_ok checks that the metadata quorum has a leader and every voter.
quorum_ok() {
	local dir="$1" n out
	n="$(cat "$dir/nodes")"
	out="$(kafka_java org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-server "$(cat "$dir/bootstrap")" describe --status 2>&1)" || { echo "$out" >&2; return 1; }
	echo "$out" | grep -Eq '^LeaderId:[[:space:]]+[0-9]+' || { echo "$out" >&2; return 1; }
	local voters
	voters="$(echo "$out" | grep '^CurrentVoters:' | grep -o '"id": *[0-9]*' | wc -l)"
	[ "$voters" = "$n" ] || { echo "$out" >&2; return 1; }
}

cmd_start() {
	local dir="$1" n="${2:-3}"
	[ "$n" -ge 1 ] && [ "$n" -le 9 ] || die "node count $n out of range 1..9"
	need_java
	command -v kcat >/dev/null 2>&1 || die "kcat is missing (scripts/install-tools.sh installs it)"
	fetch >/dev/null
	mkdir -p "$dir"
	[ -f "$dir/bootstrap" ] && node_alive "$dir" 1 && die "a cluster is already running in $dir"
	echo "$n" >"$dir/nodes"
	local attempt rc
	for attempt in 1 2 3; do
		rc=0
		start_attempt "$dir" "$n" || rc=$?
		[ "$rc" -eq 3 ] || break
		echo "kafka-cluster.sh: a port was taken before Kafka bound it; retrying on other ports" >&2
		cmd_stop "$dir"
		rm -rf "$dir"/node-*
	done
	[ "$rc" -eq 0 ] || die "cannot start the cluster: every attempt found a port taken"
	local deadline=$((SECONDS + TIMEOUT))
	until quorum_ok "$dir" 2>"$dir/quorum.log"; do
		[ $SECONDS -lt $deadline ] || { cat "$dir/quorum.log" >&2; die "the metadata quorum is not complete after ${TIMEOUT}s"; }
		sleep 1
	done
	cat "$dir/bootstrap"
}

# start_attempt picks ports, formats and starts the nodes, and waits until
# they are registered; 3 means a port was taken meanwhile.
start_attempt() {
	local dir="$1" n="$2"
	local ports
	read -r -a ports <<<"$(free_ports $((2 * n)))"
	local voters="" boot=""
	for id in $(seq 1 "$n"); do
		mkdir -p "$dir/node-$id"
		rm -f "$dir/node-$id/stopped"
		echo "${ports[$((2 * (id - 1)))]}" >"$dir/node-$id/port"
		echo "${ports[$((2 * (id - 1) + 1))]}" >"$dir/node-$id/cport"
		voters="${voters:+$voters,}$id@127.0.0.1:$(cat "$dir/node-$id/cport")"
		boot="${boot:+$boot,}127.0.0.1:$(cat "$dir/node-$id/port")"
	done
	echo "$voters" >"$dir/voters"
	echo "$boot" >"$dir/bootstrap"
	cat >"$dir/log4j2.properties" <<'EOF'
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = ${sys:kafka.logs.dir}/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.cleaner.name = kafka.log.LogCleaner
logger.cleaner.level = WARN
logger.request.name = kafka.request.logger
logger.request.level = WARN
EOF
	# The cluster id: 16 random bytes, URL-safe base64 without padding (it
	# may start with "-", hence --cluster-id=…).
	local cid
	cid="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"
	echo "$cid" >"$dir/cluster-id"
	local pids=()
	for id in $(seq 1 "$n"); do
		write_config "$dir" "$id" "$n"
		kafka_java kafka.tools.StorageTool format --cluster-id="$cid" -c "$dir/node-$id/server.properties" ${MI_KAFKA_FORMAT_ARGS:-} >"$dir/node-$id/format.log" 2>&1 &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { cat "$dir/node-$((i + 1))/format.log" >&2; die "cannot format the storage of node $((i + 1))"; }
	done
	for id in $(seq 1 "$n"); do start_node "$dir" "$id"; done
	if [ -n "${MI_KAFKA_OWNER_PID:-}" ]; then
		touch "$dir/guard"
		# Kills every node once the owner is gone (or the cluster stopped).
		setsid bash -c '
			owner="$1"; dir="$2"
			while kill -0 "$owner" 2>/dev/null && [ -e "$dir/guard" ]; do sleep 1; done
			if [ -e "$dir/guard" ]; then
				for f in "$dir"/node-*/pid; do p="$(cat "$f" 2>/dev/null)" && kill -9 -- "-$p" 2>/dev/null; done
			fi' _ "$MI_KAFKA_OWNER_PID" "$dir" >/dev/null 2>&1 </dev/null &
	fi
	wait_registered "$dir" retry-on-bind
}

cmd_kill() {
	local dir="$1" id="$2" p
	p="$(cat "$dir/node-$id/pid" 2>/dev/null)" || die "no node $id in $dir"
	kill -9 -- "-$p" 2>/dev/null || kill -9 "$p" 2>/dev/null || true
	while kill -0 "$p" 2>/dev/null; do sleep 0.1; done
	touch "$dir/node-$id/stopped"
}

cmd_restart() {
	local dir="$1" id="$2"
	[ -f "$dir/node-$id/server.properties" ] || die "no node $id in $dir"
	node_alive "$dir" "$id" && die "node $id is running; kill it first"
	need_java
	rm -f "$dir/node-$id/stopped"
	local before
	before="$(started_count "$dir" "$id")"
	start_node "$dir" "$id"
	# The controller may still list the killed incarnation: wait for the
	# new one's own "started" (logged once it is unfenced), then for all.
	local deadline=$((SECONDS + TIMEOUT))
	while [ "$(started_count "$dir" "$id")" -le "$before" ]; do
		node_alive "$dir" "$id" || { tail -n 40 "$dir/node-$id/server.log" >&2; die "node $id exited during restart"; }
		[ $SECONDS -lt $deadline ] || die "node $id did not start within ${TIMEOUT}s ($dir/node-$id/server.log)"
		sleep 0.3
	done
	wait_registered "$dir"
}

started_count() { grep -c 'Kafka Server started' "$1/node-$2/server.log" 2>/dev/null || true; }

cmd_stop() {
	local dir="$1" n id p
	n="$(cat "$dir/nodes" 2>/dev/null)" || return 0
	rm -f "$dir/guard"
	for id in $(seq 1 "$n"); do
		p="$(cat "$dir/node-$id/pid" 2>/dev/null)" || continue
		kill -TERM -- "-$p" 2>/dev/null || true
	done
	local deadline=$((SECONDS + 15))
	for id in $(seq 1 "$n"); do
		p="$(cat "$dir/node-$id/pid" 2>/dev/null)" || continue
		while kill -0 "$p" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
		kill -9 -- "-$p" 2>/dev/null || true
		touch "$dir/node-$id/stopped"
	done
}

cmd_status() {
	local dir="$1"
	echo "bootstrap: $(cat "$dir/bootstrap")"
	echo "registered brokers: $(registered "$dir")"
	kafka_java org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-server "$(cat "$dir/bootstrap")" describe --status
}

case "${1:-}" in
fetch) need_java; fetch ;;
start) [ $# -ge 2 ] || die "usage: $0 start DIR [N]"; cmd_start "$2" "${3:-3}" ;;
kill) [ $# -eq 3 ] || die "usage: $0 kill DIR ID"; cmd_kill "$2" "$3" ;;
restart) [ $# -eq 3 ] || die "usage: $0 restart DIR ID"; cmd_restart "$2" "$3" ;;
wait) [ $# -eq 2 ] || die "usage: $0 wait DIR"; wait_registered "$2" ;;
status) [ $# -eq 2 ] || die "usage: $0 status DIR"; cmd_status "$2" ;;
stop) [ $# -eq 2 ] || die "usage: $0 stop DIR"; cmd_stop "$2" ;;
*) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
