#!/usr/bin/env bash
# Profiles a warm service with async-profiler, taken from Maven Central, and prints where its
# CPU goes. Builds the jar, starts it on an embedded PostgreSQL with S1's webhook receiver,
# warms it up with S1 (not profiled), then profiles the scenario. Needs what bench/run.sh needs.
# Settings: SCENARIO (s1, host-to-host card payments as bench/run.sh's S1, or s2, reads by id
# of the warm-up's payments; default s1), WARMUP (seconds of S1 first, default 120; for s2
# also 30 s of s2), DURATION (seconds profiled, default 60), CONNECTIONS (default 16),
# KEEP_DATA (1 keeps the database, deleted on exit otherwise, beside the service's log).
set -euo pipefail
cd "$(dirname "$0")/.."
SCENARIO=${SCENARIO:-s1}
WARMUP=${WARMUP:-120}
DURATION=${DURATION:-60}
CONNECTIONS=${CONNECTIONS:-16}
case "$SCENARIO" in s1|s2) ;; *) echo "SCENARIO is s1 or s2" >&2; exit 2;; esac
for tool in wrk psql python3 java jar; do
  command -v "$tool" >/dev/null || { echo "bench/profile.sh needs $tool" >&2; exit 2; }
done
AP_VERSION=4.1
case "$(uname -m)" in
  x86_64|amd64) AP_PLATFORM=linux-x64;;
  aarch64|arm64) AP_PLATFORM=linux-arm64;;
  *) echo "bench/profile.sh: async-profiler's jar has no library for $(uname -m)" >&2; exit 2;;
esac
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tollgate-profile.XXXXXX")
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PID=""; RECEIVER=""
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
  [ -n "$RECEIVER" ] && kill "$RECEIVER" 2>/dev/null || true
  # The log and the profile stay; the database would fill a disk in a few runs.
  [ "${KEEP_DATA:-0}" = 1 ] || rm -rf "$WORK/data"
}
trap cleanup EXIT
# wrk ends normally on Ctrl+C, and the script would go on with the next step: stop it here
trap 'exit 130' INT TERM

# The profiler's jar, from wherever Maven's settings resolve it (local repository, mirror).
./mvnw -q -B -N dependency:copy -Dartifact=tools.profiler:async-profiler:$AP_VERSION -DoutputDirectory="$WORK"
(cd "$WORK" && jar xf "async-profiler-$AP_VERSION.jar" "$AP_PLATFORM/libasyncProfiler.so")
AGENT="$WORK/$AP_PLATFORM/libasyncProfiler.so"
echo "building the jar ..." >&2
./mvnw -q -DskipTests package

PORT=$(free_port); HOOK_PORT=$(free_port)
python3 bench/receiver.py "$HOOK_PORT" & RECEIVER=$!
TOLLGATE_DATA_DIR="$WORK/data" TOLLGATE_PORT="$PORT" TOLLGATE_HOST=127.0.0.1 TOLLGATE_RATE_LIMIT=0 \
  TOLLGATE_WEBHOOK_PARALLELISM=32 \
  java -Xmx512m -XX:+UseParallelGC -jar bootstrap/target/tollgate.jar serve > "$WORK/service.log" 2>&1 &
PID=$!
for _ in $(seq 1 120); do grep -q "Tollgate is running" "$WORK/service.log" && break; kill -0 "$PID" 2>/dev/null || break; sleep 1; done
grep -q "Tollgate is running" "$WORK/service.log" || { cat "$WORK/service.log" >&2; exit 1; }
export TOLLGATE_BENCH_KEY=$(awk '/API key:/ {print $3}' "$WORK/service.log")
export TOLLGATE_BENCH_WEBHOOK="http://127.0.0.1:$HOOK_PORT/hooks"
URL="http://127.0.0.1:$PORT"

echo "warming up with ${WARMUP}s of S1 (not profiled) ..." >&2
wrk -t2 -c"$CONNECTIONS" -d"${WARMUP}s" -s bench/wrk/s1-payment.lua "$URL" >/dev/null
SCRIPT=bench/wrk/s1-payment.lua
if [ "$SCENARIO" = s2 ]; then
  PGPORT=$(sed -n 4p "$WORK/data/postgres/postmaster.pid")
  PGPASSWORD=$(cat "$WORK/data/postgres/tollgate-password" 2>/dev/null) psql -X -q -At -h 127.0.0.1 -p "$PGPORT" -U postgres postgres \
    -c "SELECT id FROM payments ORDER BY random() LIMIT 20000" > "$WORK/ids.txt"
  export TOLLGATE_BENCH_IDS="$WORK/ids.txt"
  SCRIPT=bench/wrk/s2-get.lua
  wrk -t2 -c"$CONNECTIONS" -d30s -s "$SCRIPT" "$URL" >/dev/null
fi

echo "profiling ${DURATION}s of $SCENARIO ..." >&2
java bench/Attach.java "$PID" "$AGENT" start,event=cpu,interval=1ms
wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s "$SCRIPT" "$URL" | grep RESULT
java bench/Attach.java "$PID" "$AGENT" "stop,file=$WORK/$SCENARIO.collapsed,collapsed"
kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
python3 bench/profile_summary.py "$WORK/$SCENARIO.collapsed"
echo "collapsed stacks (for a flame graph): $WORK/$SCENARIO.collapsed"
