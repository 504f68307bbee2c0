#!/usr/bin/env bash
# Profiles the database's half of S1: which statements PostgreSQL spends its time on, and (with
# Linux perf) in which phase of its work. Builds the jar, starts it on an embedded PostgreSQL
# with pg_stat_statements loaded (the service is started once to create the database, then
# again with the extension: a library preloaded at start-up cannot be added later), warms it up
# with S1, then measures S1 and prints, per completed payment, the CPU of the service and of
# PostgreSQL, each statement's calls and time, and perf's phases of PostgreSQL's samples.
# Needs what bench/run.sh needs, and pgrep; perf (Debian: linux-perf) is optional, and needs
# root or kernel.perf_event_paranoid <= 1.
# Settings: WARMUP (seconds of S1 first, default 120), DURATION (seconds measured, default 30),
# PERF_SECONDS (seconds of those sampled by perf, default 8), CONNECTIONS (default 16),
# KEEP_DATA (1 keeps the database, deleted on exit otherwise, beside the service's log).
set -euo pipefail
cd "$(dirname "$0")/.."
WARMUP=${WARMUP:-120}
DURATION=${DURATION:-30}
PERF_SECONDS=${PERF_SECONDS:-8}
CONNECTIONS=${CONNECTIONS:-16}
for tool in wrk psql python3 java pgrep; do
  command -v "$tool" >/dev/null || { echo "bench/db-profile.sh needs $tool" >&2; exit 2; }
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tollgate-db-profile.XXXXXX")
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PID=""; RECEIVER=""
cleanup() {
  # a system-wide perf record left running would write perf.data after the cleanup
  if [ -n "${PERF_PID:-}" ]; then
    kill "$PERF_PID" 2>/dev/null || true  # before it starts perf, or after
    pkill -INT -f "$WORK/perf.data" 2>/dev/null || true  # perf itself, by the file only it names
    wait "$PERF_PID" 2>/dev/null || true
  fi
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
  [ -n "$RECEIVER" ] && kill "$RECEIVER" 2>/dev/null || true
  rm -rf "$WORK/perf.data"
  [ "${KEEP_DATA:-0}" = 1 ] || rm -rf "$WORK/data"
}
trap cleanup EXIT
# wrk ends normally on Ctrl+C, and the script would go on with the next step: stop it here
trap 'exit 130' INT TERM

echo "building the jar ..." >&2
./mvnw -q -DskipTests package

PORT=$(free_port); HOOK_PORT=$(free_port)
serve() {
  TOLLGATE_DATA_DIR="$WORK/data" TOLLGATE_PORT="$PORT" TOLLGATE_HOST=127.0.0.1 TOLLGATE_RATE_LIMIT=0 \
    TOLLGATE_WEBHOOK_PARALLELISM=32 \
    java -Xmx512m -XX:+UseParallelGC -jar bootstrap/target/tollgate.jar serve > "$WORK/service.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 120); do grep -q "Tollgate is running" "$WORK/service.log" && break; kill -0 "$PID" 2>/dev/null || break; sleep 1; done
  grep -q "Tollgate is running" "$WORK/service.log" || { cat "$WORK/service.log" >&2; exit 1; }
  PGPORT=$(sed -n 4p "$WORK/data/postgres/postmaster.pid")
  export PGPASSWORD=$(cat "$WORK/data/postgres/tollgate-password" 2>/dev/null)
  PSQL=(psql -X -q -At -h 127.0.0.1 -p "$PGPORT" -U postgres postgres)
}
serve
# The demo merchant's key is printed when it is created, at the first start.
export TOLLGATE_BENCH_KEY=$(awk '/API key:/ {print $3}' "$WORK/service.log")
"${PSQL[@]}" -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
kill "$PID"; wait "$PID" 2>/dev/null || true
serve
"${PSQL[@]}" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" \
  -c "ALTER SYSTEM SET pg_stat_statements.track = 'all'" -c "SELECT pg_reload_conf()" >/dev/null
POSTMASTER=$(sed -n 1p "$WORK/data/postgres/postmaster.pid")

python3 bench/receiver.py "$HOOK_PORT" & RECEIVER=$!
export TOLLGATE_BENCH_WEBHOOK="http://127.0.0.1:$HOOK_PORT/hooks"
URL="http://127.0.0.1:$PORT"

echo "warming up with ${WARMUP}s of S1 (not measured) ..." >&2
wrk -t2 -c"$CONNECTIONS" -d"${WARMUP}s" -s bench/wrk/s1-payment.lua "$URL" >/dev/null
"${PSQL[@]}" -c "SELECT pg_stat_statements_reset()" >/dev/null

ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# PostgreSQL's CPU: the postmaster's children that are alive now (the pool keeps its
# connections, so the backends that matter live through the measurement).
pg_ticks() {
  local sum=0 p
  for p in $(pgrep -P "$POSTMASTER"); do sum=$((sum + $(ticks "$p"))); done
  echo "$sum"
}
PERF=""; PERF_PID=""
if command -v perf >/dev/null && perf record -o /dev/null -a -- true >/dev/null 2>&1; then
  PERF=1
  ( sleep 5; perf record -q -a --call-graph dwarf,16384 -F 499 -o "$WORK/perf.data" -- sleep "$PERF_SECONDS" \
      >/dev/null 2>&1 ) &
  PERF_PID=$!
else
  echo "perf is missing or not permitted: statements only" >&2
fi
s0=$(ticks "$PID"); p0=$(pg_ticks)
RESULT=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/wrk/s1-payment.lua "$URL" | grep '^RESULT')
s1=$(ticks "$PID"); p1=$(pg_ticks)
[ -z "$PERF_PID" ] || wait "$PERF_PID"
echo "$RESULT"
PAYMENTS=$(sed -E 's/.* units=([0-9]+).*/\1/' <<<"$RESULT")
[ "$PAYMENTS" -gt 0 ] || { echo "no payment completed; the service's log: $WORK/service.log" >&2; exit 1; }
HZ=$(getconf CLK_TCK)
awk -v s=$((s1 - s0)) -v p=$((p1 - p0)) -v n="$PAYMENTS" -v hz="$HZ" -v d="$DURATION" 'BEGIN {
  printf "CPU per completed payment: service %.2f ms, PostgreSQL %.2f ms (%.2f and %.2f cores)\n",
    1000 * s / hz / n, 1000 * p / hz / n, s / hz / d, p / hz / d }'
echo
echo "PostgreSQL statements during S1 (pg_stat_statements: time inside the executor, by the clock, so on a"
echo "busy machine also time spent waiting for a core or a lock; nested statements such as foreign-key"
echo "checks are listed on their own and also counted in the statement that ran them):"
"${PSQL[@]}" -F ' | ' -c "
  SELECT to_char(calls::numeric / $PAYMENTS, 'FM990.00') AS per_payment,
         to_char(total_exec_time / calls * 1000, 'FM99990') AS us_per_call,
         to_char(total_exec_time / $PAYMENTS * 1000, 'FM99990') AS us_per_payment,
         left(regexp_replace(query, '\s+', ' ', 'g'), 90)
    FROM pg_stat_statements
   WHERE calls >= $PAYMENTS / 100
   ORDER BY total_exec_time DESC LIMIT 15" |
  awk -F ' \\| ' 'BEGIN { printf "%11s %11s %14s  %s\n", "per payment", "us per call", "us per payment", "statement" }
                  { printf "%11s %11s %14s  %s\n", $1, $2, $3, $4 }'
if [ -n "$PERF" ]; then
  echo
  perf script -i "$WORK/perf.data" --comm postgres 2>/dev/null | python3 bench/db_phases.py
fi
