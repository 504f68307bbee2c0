#!/usr/bin/env bash
# Tollgate's benchmark suite: builds the jar, starts the gateway on an embedded PostgreSQL,
# loads it with wrk and pgbench, and prints one table. Needs a JDK, python3, curl, wrk and pgbench
# (Debian: apt-get install wrk postgresql-client python3 curl); run from anywhere: bench/run.sh
# Settings: DURATION (seconds per scenario, default 20), CONNECTIONS (default 16),
# LIST_ROWS (payments seeded for S3, default 1000000), EVENT_RATE (outbox events/s written for
# S4 on its own, default 1500), WARMUP (seconds of S1 that warm the JIT up first, default 180),
# WARM_EACH (seconds each wrk scenario runs unmeasured right before it is measured, default 30),
# BENCH_JAVA_OPTS (JVM options after the default -Xmx512m -XX:+UseParallelGC, which they override;
# the table's heading names them),
# KEEP_DATA (1 keeps the run's database, about 2 GB, beside its service.log, in a new directory
# under TMPDIR, default /tmp),
# KILLBILL (1 adds Kill Bill's rows from bench/killbill.sh, on the server of TOLLGATE_DB_URL;
# needs curl and unzip too; if Kill Bill fails, the table comes without its rows and the run exits 1).
# On your own PostgreSQL instead of the embedded one (the server your other systems are measured
# on): TOLLGATE_DB_URL=jdbc:postgresql://HOST:PORT/DB with TOLLGATE_DB_USER and
# TOLLGATE_DB_PASSWORD, a user that may create databases. The run creates its own database
# (tollgate_bench_<time>) on that server next to DB, and drops it at the end unless KEEP_DATA=1.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-20}
CONNECTIONS=${CONNECTIONS:-16}
LIST_ROWS=${LIST_ROWS:-1000000}

if [ "${KILLBILL:-0}" = 1 ] && [ -z "${TOLLGATE_DB_URL:-}" ]; then
  echo "bench/run.sh: KILLBILL=1 runs Kill Bill on your PostgreSQL server; give it as TOLLGATE_DB_URL (bench/killbill.sh)" >&2
  exit 2
fi
TOOLS=(wrk pgbench psql python3 java curl)
# bench/killbill.sh's own (it checks them too, but only after Tollgate's scenarios)
[ "${KILLBILL:-0}" != 1 ] || TOOLS+=(unzip)
for tool in "${TOOLS[@]}"; do
  if ! command -v "$tool" >/dev/null; then
    echo "bench/run.sh needs $tool (Debian: apt-get install wrk postgresql-client python3 curl unzip)" >&2
    exit 2
  fi
done

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tollgate-bench.XXXXXX")
PORT=$(free_port)
HOOK_PORT=$(free_port)
SERVICE_PID=""; RECEIVER_PID=""; BENCH_DB=""

# psql and pgbench find the database through libpq's PG* variables, set below.
. bench/pg-server.sh
. bench/table.sh
. bench/steps.sh
if [ -n "${TOLLGATE_DB_URL:-}" ]; then
  pg_server_from_url
  BENCH_DB="tollgate_bench_$(date +%Y%m%d%H%M%S)"
  create_bench_db "$BENCH_DB"
  DB_ENV=(TOLLGATE_DB_URL="jdbc:postgresql://$PGHOST:$PGPORT/$BENCH_DB")
else
  DB_ENV=()
fi

cleanup() {
  [ -n "$SERVICE_PID" ] && kill "$SERVICE_PID" 2>/dev/null && wait "$SERVICE_PID" 2>/dev/null || true
  [ -n "$RECEIVER_PID" ] && kill "$RECEIVER_PID" 2>/dev/null || true
  # The service log stays for a look afterwards; the database would fill a disk in a few runs.
  if [ "${KEEP_DATA:-0}" != 1 ]; then
    rm -rf "$WORK/data"
    if [ -n "$BENCH_DB" ]; then
      drop_bench_db "$BENCH_DB"
    fi
  elif [ -n "$BENCH_DB" ]; then
    echo "kept database $BENCH_DB on $PGHOST:$PGPORT" >&2
  fi
}
trap cleanup EXIT
# wrk ends normally on Ctrl+C, and the script would go on with the next step: stop it here
trap 'exit 130' INT TERM

echo "building the jar ..." >&2
./mvnw -q -DskipTests package

if [ -n "$BENCH_DB" ]; then
  echo "starting Tollgate (database $BENCH_DB on $PGHOST:$PGPORT, log in $WORK) ..." >&2
else
  echo "starting Tollgate (embedded PostgreSQL, data in $WORK) ..." >&2
fi
env "${DB_ENV[@]}" TOLLGATE_DATA_DIR="$WORK/data" TOLLGATE_PORT="$PORT" TOLLGATE_HOST=127.0.0.1 TOLLGATE_RATE_LIMIT=0 \
  TOLLGATE_WEBHOOK_PARALLELISM=32 \
  java -Xmx512m -XX:+UseParallelGC ${BENCH_JAVA_OPTS:-} -jar bootstrap/target/tollgate.jar serve > "$WORK/service.log" 2>&1 &
SERVICE_PID=$!
for _ in $(seq 1 120); do grep -q "Tollgate is running" "$WORK/service.log" && break; kill -0 "$SERVICE_PID" 2>/dev/null || break; sleep 1; done
grep -q "Tollgate is running" "$WORK/service.log" || { cat "$WORK/service.log" >&2; exit 1; }
KEY=$(awk '/API key:/ {print $3}' "$WORK/service.log")
PASSWORD=$(awk '/Merchant API user:/ {print $NF}' "$WORK/service.log")
if [ -n "$BENCH_DB" ]; then
  export PGDATABASE=$BENCH_DB
else
  # the embedded server asks for its superuser's password, kept in its data directory
  export PGHOST=127.0.0.1 PGPORT=$(sed -n 4p "$WORK/data/postgres/postmaster.pid") PGUSER=postgres PGDATABASE=postgres \
    PGPASSWORD=$(cat "$WORK/data/postgres/tollgate-password" 2>/dev/null)
fi
PSQL=(psql -X -q -At)
PG_VERSION=$("${PSQL[@]}" -c "SHOW server_version" | awk '{print $1}')
BASE="http://127.0.0.1:$PORT"

python3 bench/receiver.py "$HOOK_PORT" & RECEIVER_PID=$!

cpu_ticks() { awk '{print $14 + $15}' "/proc/$SERVICE_PID/stat"; }
heap_mb() {
  curl -s "$BASE/metrics" | awk '/^jvm_memory_used_bytes\{area="heap"/ {sum += $NF} END {printf "%.0f", sum / 1048576}'
}
major_gcs() {
  curl -s "$BASE/metrics" | awk '/^jvm_gc_pause_seconds_count\{.*major/ {sum += $NF} END {printf "%d", sum}'
}
TICKS=$(getconf CLK_TCK)
ROWS=()
CEILING=""

# CPU ticks the service's JIT compiler threads have used.
jit_ticks() {
  for task in /proc/"$SERVICE_PID"/task/*; do
    if grep -q Compiler "$task/comm" 2>/dev/null; then awk '{print $14 + $15}' "$task/stat"; fi
  done | awk '{sum += $1} END {print sum + 0}'
}

# wrk_run STEP NAME SCRIPT -> appends a table row, measured after WARM_EACH seconds of
# the same load that are not counted (the JIT compiles each scenario's own code first);
# wrk's output is in WORK/STEP.out.
wrk_run() {
  local step=$1 name=$2 script=$3
  local t0 t1 j0 j1
  wrk_step "$step-warm" -t2 -c"$CONNECTIONS" -d"${WARM_EACH:-30}s" -s "$script" "$BASE"
  t0=$(cpu_ticks); j0=$(jit_ticks)
  wrk_step "$step" -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$script" "$BASE"
  t1=$(cpu_ticks); j1=$(jit_ticks)
  eval "$(sed -n 's/^RESULT //p' "$WORK/$step.out")"
  local rate cpu
  rate=$(python3 -c "print(round($units / $seconds, 1))")
  cpu=$(python3 -c "print(round(($t1 - $t0) / $TICKS / $seconds * 100))")
  # the JIT's compiler threads over the same measured window as the CPU %, which includes them
  LAST_JIT=$(python3 -c "print(round(($j1 - $j0) / $TICKS / $seconds * 100))")
  ROWS+=("$name|$rate|$p50|$p99|$errors|$cpu|$(heap_mb)")
}

echo "S5: the database's own ceiling (pgbench, -c 16 -j 2) ..." >&2
"${PSQL[@]}" -f bench/ceiling-schema.sql >/dev/null
step s5-ceiling pgbench -n -c 16 -j 2 -T "$DURATION" -f bench/ceiling.sql
CEILING=$(awk '/^tps/ {print $3; exit}' "$WORK/s5-ceiling.out")
[ -n "$CEILING" ] || step_failed s5-ceiling "printed no tps line"
ROWS+=("S5 pgbench ceiling transaction (tx/s)|$(printf '%.0f' "$CEILING")|-|-|0|-|-")

# On two cores the JIT compiles under S1 for minutes: a payment's path is long (Jetty, Jersey,
# Jackson, Jdbi, the driver, the webhook client), and a busy machine leaves the compiler
# threads little time. S1 runs for WARMUP seconds first, not counted: with the throughput
# collector the compiler threads go quiet after 140-160 s of S1 here, and the rate stops rising
# with them (BENCHMARKS.md).
echo "warming the JIT up (S1 for ${WARMUP:-180}s, not counted) ..." >&2
export TOLLGATE_BENCH_KEY=$KEY TOLLGATE_BENCH_WEBHOOK="http://127.0.0.1:$HOOK_PORT/hooks"
wrk_step warmup -t2 -c"$CONNECTIONS" -d"${WARMUP:-180}s" -s bench/wrk/s1-payment.lua "$BASE"
# S4's first row measures S1's own events: the warm-up's must all be delivered first.
for _ in $(seq 1 180); do
  [ "$("${PSQL[@]}" -c "SELECT count(*) FROM webhook_events WHERE status = 'PENDING'")" = "0" ] && break; sleep 1
done
LEFT=$("${PSQL[@]}" -c "SELECT count(*) FROM webhook_events WHERE status = 'PENDING'")
[ "$LEFT" = "0" ] || echo "warning: $LEFT webhook events of the warm-up still pending; S4's first row includes them" >&2

echo "S1: host-to-host card payments ..." >&2
S1_START=$("${PSQL[@]}" -c "SELECT now()")
wrk_run s1 "S1 H2H card payment, POST+PATCH (payments/s; p50/p99 per request)" bench/wrk/s1-payment.lua
S1_JIT=$LAST_JIT

# s4_row NAME SINCE -> a table row for the events written since SINCE, once all are settled:
# delivered events/s from the first written to the last delivered, their delivery lag p50/p99,
# undelivered (failed or still pending, as errors).
s4_row() {
  local name=$1 since=$2 cpu=${3:--} out rate lag50 lag99 failed
  for _ in $(seq 1 180); do
    [ "$("${PSQL[@]}" -c "SELECT count(*) FROM webhook_events WHERE status = 'PENDING'")" = "0" ] && break; sleep 1
  done
  out=$("${PSQL[@]}" -F'|' -c "
    SELECT count(*) FILTER (WHERE status = 'DELIVERED')
             / greatest(extract(epoch FROM max(finished) FILTER (WHERE status = 'DELIVERED') - min(created)), 0.001),
           1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished - created))
             FILTER (WHERE status = 'DELIVERED'),
           1000 * percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM finished - created))
             FILTER (WHERE status = 'DELIVERED'),
           count(*) FILTER (WHERE status <> 'DELIVERED')
    FROM webhook_events WHERE created >= '$since'")
  IFS='|' read -r rate lag50 lag99 failed <<< "$out"
  ROWS+=("$name|$(printf '%.0f' "$rate")|$(printf '%.1f' "$lag50")|$(printf '%.1f' "$lag99")|$failed|$cpu|$(heap_mb)")
}

echo "S4: webhook dispatch of S1's events ..." >&2
s4_row "S4 webhooks of S1 (events/s; p50/p99 = delivery lag)" "$S1_START"

# S1 makes events only as fast as it makes payments. To load the dispatcher on its own,
# pgbench writes outbox events at a fixed rate (copies of S1's events under new ids, signed
# and delivered like any other) and the lag is measured from each one's writing.
EVENT_RATE=${EVENT_RATE:-1500}
echo "S4: webhook dispatch at $EVENT_RATE events/s offered ..." >&2
SOURCES=$("${PSQL[@]}" -c "
  SET client_min_messages = warning;
  DROP TABLE IF EXISTS bench_s4_sources;
  CREATE TABLE bench_s4_sources AS
    SELECT row_number() OVER () AS n, payment_id, shop_id, payment_state, target_url, body
    FROM webhook_events WHERE created >= '$S1_START';
  CREATE UNIQUE INDEX ON bench_s4_sources (n);
  SELECT count(*) FROM bench_s4_sources;" | tail -1)
S4_START=$("${PSQL[@]}" -c "SELECT now()")
T0=$(cpu_ticks)
step s4-offered pgbench -n -c 4 -j 2 -R "$EVENT_RATE" -T "$DURATION" -D sources="$SOURCES" -f bench/s4-event.sql
for _ in $(seq 1 180); do
  [ "$("${PSQL[@]}" -c "SELECT count(*) FROM webhook_events WHERE status = 'PENDING'")" = "0" ] && break; sleep 1
done
T1=$(cpu_ticks)
# CPU: the service's share of one core from the first event written until all were settled.
S4_CPU=$(python3 -c "print(round(($T1 - $T0) / $TICKS / $("${PSQL[@]}" -c "SELECT extract(epoch FROM now() - '$S4_START')") * 100))")
s4_row "S4 webhooks at $EVENT_RATE/s offered (events/s; p50/p99 = lag)" "$S4_START" "$S4_CPU"

echo "S2: reading payments by id ..." >&2
"${PSQL[@]}" -c "SELECT id FROM payments ORDER BY random() LIMIT 20000" > "$WORK/ids.txt"
export TOLLGATE_BENCH_IDS="$WORK/ids.txt"
wrk_run s2 "S2 GET /api/v1/payments/{id} (requests/s)" bench/wrk/s2-get.lua

echo "S3: seeding $LIST_ROWS payments for the merchant list ..." >&2
"${PSQL[@]}" -v ON_ERROR_STOP=1 -v rows="$LIST_ROWS" -f bench/seed-list.sql >/dev/null
export TOLLGATE_BENCH_BASIC=$(printf '%s' "demo@tollgate.test:$PASSWORD" | base64 -w0)
# The first request of a credential pays for its bcrypt check; do it once before measuring.
curl -s -o /dev/null -H "Authorization: Basic $TOLLGATE_BENCH_BASIC" "$BASE/merchant-api/v1/shops"
TOLLGATE_BENCH_OFFSET=0 wrk_run s3-first "S3 merchant payments, first page (requests/s)" bench/wrk/s3-list.lua
TOLLGATE_BENCH_OFFSET=100000 wrk_run s3-offset "S3 merchant payments, offset 100000 (requests/s)" bench/wrk/s3-list.lua

GC_SAID="major GCs during the run: $(major_gcs); the JIT's compiler threads during S1 (its CPU % includes them): ${S1_JIT}% of a core"

if [ "${KILLBILL:-0}" = 1 ]; then
  # The machine is Kill Bill's alone for its rows: Tollgate and the receiver stop first.
  kill "$SERVICE_PID" "$RECEIVER_PID" 2>/dev/null || true
  wait "$SERVICE_PID" 2>/dev/null || true
  SERVICE_PID=""; RECEIVER_PID=""
  # Kill Bill failing costs its rows, not Tollgate's table.
  if CEILING=$CEILING KB_ROWS_FILE="$WORK/killbill-rows.txt" bash bench/killbill.sh; then
    while IFS= read -r row; do ROWS+=("$row"); done < "$WORK/killbill-rows.txt"
  else
    KB_FAILED=$?
    echo "warning: bench/killbill.sh failed (exit $KB_FAILED, why above); the table has no Kill Bill rows" >&2
  fi
fi

echo
if [ -n "$BENCH_DB" ]; then DB_SAID="PostgreSQL $PG_VERSION at $PGHOST:$PGPORT"; else DB_SAID="embedded PostgreSQL $PG_VERSION"; fi
if [ -n "${BENCH_JAVA_OPTS:-}" ]; then JVM_SAID="-Xmx512m -XX:+UseParallelGC $BENCH_JAVA_OPTS"; else JVM_SAID="-Xmx512m, ParallelGC"; fi
echo "Tollgate benchmark · $(date -u +%Y-%m-%dT%H:%M:%SZ) · $(nproc) cores · ${DURATION}s per scenario · $CONNECTIONS connections · $JVM_SAID · S1 after ${WARMUP:-180}s of warm-up · $DB_SAID"
print_table
echo "$GC_SAID"
[ "${KILLBILL:-0}" != 1 ] || [ -n "${KB_FAILED:-}" ] || echo "Kill Bill's rows (bench/killbill.sh): on the same server after Tollgate stopped, ${KB_WARMUP:-60}s of load unmeasured then ${DURATION}s, -Xmx1g, ${KB_ACCOUNTS:-64} accounts"
[ -z "${KB_FAILED:-}" ] || echo "Kill Bill's rows are missing: bench/killbill.sh failed (exit $KB_FAILED), see above"
# A row with errors (marked in the table), or Kill Bill's missing, makes the run fail, after the table is out.
[ "$TABLE_ERRORS" = 0 ] && [ -z "${KB_FAILED:-}" ] || exit 1
