#!/usr/bin/env bash
# Profiles scenario S1 (host-to-host card payments) with async-profiler, taken from Maven
# Central, and prints where the service's CPU goes. Needs what bench/run.sh needs.
# Settings: DURATION (seconds of load, default 60), CONNECTIONS (default 16).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-60}
CONNECTIONS=${CONNECTIONS:-16}
AP_VERSION=4.1
WORK=$(mktemp -d /tmp/tollgate-profile.XXXXXX)

./mvnw -q -B dependency:get -Dartifact=tools.profiler:async-profiler:$AP_VERSION >/dev/null
(cd "$WORK" && unzip -q "$HOME/.m2/repository/tools/profiler/async-profiler/$AP_VERSION/async-profiler-$AP_VERSION.jar" 'linux-x64/*')
[ -f bootstrap/target/tollgate.jar ] || ./mvnw -q -DskipTests package

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
TOLLGATE_DATA_DIR="$WORK/data" TOLLGATE_PORT="$PORT" TOLLGATE_HOST=127.0.0.1 TOLLGATE_RATE_LIMIT=0 \
  java "-agentpath:$WORK/linux-x64/libasyncProfiler.so=start,event=cpu,interval=1ms,file=$WORK/s1.collapsed,collapsed" \
  -Xmx512m -XX:+UseParallelGC -jar bootstrap/target/tollgate.jar serve > "$WORK/service.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do grep -q "Tollgate is running" "$WORK/service.log" && break; sleep 1; done
export TOLLGATE_BENCH_KEY=$(awk '/API key:/ {print $3}' "$WORK/service.log")
wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/wrk/s1-payment.lua "http://127.0.0.1:$PORT" | grep RESULT
kill "$PID"; wait "$PID" 2>/dev/null || true
rm -rf "$WORK/data"
python3 bench/profile_summary.py "$WORK/s1.collapsed"
echo "collapsed stacks (for a flame graph): $WORK/s1.collapsed"
