#!/usr/bin/env bash
# Compares two builds of Tollgate on S1 (host-to-host card payments, webhooks delivered to a
# local receiver), S2 or S3 in a way a shared machine's drift does not swamp: both services run
# at once, each on its own embedded PostgreSQL, are warmed up, then take the scenario in turn
# (A B, B A, A B ...) and each adjacent pair gives one ratio. Needs a JDK, python3, wrk and
# pgrep; SCENARIO=s2 also psql, s3 psql and curl.
# Usage: bench/ab.sh A.jar B.jar   (build each from a clean tree or a fresh clone; the same jar
# twice to compare JVM options)
# Settings: ROUNDS (runs of each build, default 8), SECS (seconds per run, default 20),
# WARM (seconds of S1 that warm each service up first, default 90), CONNECTIONS (default 16),
# SCENARIO (s1; s2 for reads by id of the payments the warm-up made; s3 for the merchant list's
# first page over LIST_ROWS more payments, default 200000; default s1),
# JAVA_OPTS_A / JAVA_OPTS_B (default for both: -Xmx512m -XX:+UseParallelGC, as bench/run.sh),
# JAVA_A / JAVA_B (the java command each side runs on, default java: to compare JDKs),
# ENV_A / ENV_B (extra NAME=value settings for one side, e.g. ENV_B=TOLLGATE_DB_POOL_SIZE=8),
# KEEP_DATA (1 keeps both databases beside the services' logs, in a new directory under TMPDIR,
# default /tmp).
# Besides throughput, each run gives the CPU time the service and its database spent per unit
# (payment or request), from /proc: less swayed than throughput by whatever else the machine
# runs, as it counts only what the two did.
set -euo pipefail
if [ $# -ne 2 ] || [ ! -f "$1" ] || [ ! -f "$2" ]; then
  echo "usage: bench/ab.sh A.jar B.jar" >&2
  exit 2
fi
JAR_A=$(realpath "$1"); JAR_B=$(realpath "$2")
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-8}; SECS=${SECS:-20}; WARM=${WARM:-90}; CONNECTIONS=${CONNECTIONS:-16}
SCENARIO=${SCENARIO:-s1}
JAVA_OPTS_A=${JAVA_OPTS_A:--Xmx512m -XX:+UseParallelGC}; JAVA_OPTS_B=${JAVA_OPTS_B:--Xmx512m -XX:+UseParallelGC}
ENV_A=${ENV_A:-}; ENV_B=${ENV_B:-}
JAVA_A=${JAVA_A:-java}; JAVA_B=${JAVA_B:-java}
case "$SCENARIO" in s1|s2|s3) ;; *) echo "SCENARIO is s1, s2 or s3" >&2; exit 2;; esac
LIST_ROWS=${LIST_ROWS:-200000}
TOOLS=(wrk python3 java pgrep)
case "$SCENARIO" in s2) TOOLS+=(psql);; s3) TOOLS+=(psql curl);; esac
for tool in "${TOOLS[@]}"; do
  command -v "$tool" >/dev/null || { echo "bench/ab.sh needs $tool (SCENARIO=$SCENARIO)" >&2; exit 2; }
done

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tollgate-ab.XXXXXX")
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  # The logs stay; the two databases would fill a disk in a few runs.
  [ "${KEEP_DATA:-0}" = 1 ] || rm -rf "$WORK/A" "$WORK/B"
}
trap cleanup EXIT
# wrk ends normally on Ctrl+C, and the script would go on with the next step: stop it here
trap 'exit 130' INT TERM

HOOK_PORT=$(free_port)
python3 bench/receiver.py "$HOOK_PORT" & PIDS+=($!)
export TOLLGATE_BENCH_WEBHOOK="http://127.0.0.1:$HOOK_PORT/hook"

# start NAME JAR JAVA_OPTS ENV JAVA -> sets PORT_<NAME> and KEY_<NAME>
start() {
  local name=$1 jar=$2 opts=$3 extra=$4 java=$5 port pid
  port=$(free_port)
  # shellcheck disable=SC2086 # the options and settings are words
  env TOLLGATE_DATA_DIR="$WORK/$name" TOLLGATE_PORT="$port" TOLLGATE_HOST=127.0.0.1 TOLLGATE_RATE_LIMIT=0 \
    TOLLGATE_WEBHOOK_PARALLELISM=32 $extra "$java" $opts -jar "$jar" serve > "$WORK/$name.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  printf -v "JPID_$name" '%s' "$pid"
  for _ in $(seq 1 120); do grep -q "Tollgate is running" "$WORK/$name.log" && break; kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  grep -q "Tollgate is running" "$WORK/$name.log" || { cat "$WORK/$name.log" >&2; exit 1; }
  printf -v "PORT_$name" '%s' "$port"
  printf -v "KEY_$name" '%s' "$(awk '/API key:/ {print $3}' "$WORK/$name.log")"
}

# summary: wrk's RESULT line -> "units p50 p99 errors non2xx" (units: completed payments in S1, else requests)
summary() {
  sed -nE 's/^RESULT requests=[0-9]+ units=([0-9]+) .*p50=([0-9.]+) p99=([0-9.]+) errors=([0-9]+) non2xx=([0-9]+).*/\1 \2 \3 \4 \5/p'
}

# ticks PID... -> the CPU time (user and system, in clock ticks) the processes have used
ticks() {
  local t=0 p
  for p in "$@"; do [ -r "/proc/$p/stat" ] && t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done
  echo "$t"
}

# cpu NAME -> "service-ticks database-ticks": NAME's service, and its PostgreSQL (the server and its backends)
cpu() {
  local jpid="JPID_$1" pm
  pm=$(sed -n 1p "$WORK/$1/postgres/postmaster.pid")
  # shellcheck disable=SC2046 # one word per backend
  echo "$(ticks "${!jpid}") $(ticks "$pm" $(pgrep -P "$pm"))"
}

# measured SCENARIO NAME SECONDS -> its summary, then the CPU ticks of service and database it took
measured() {
  local before after
  before=$(cpu "$2")
  local result; result=$("$1" "$2" "$3")
  after=$(cpu "$2")
  # shellcheck disable=SC2086 # two numbers each
  echo "$result $(set -- $before $after; echo $(($3 - $1)) $(($4 - $2)))"
}

# s1 NAME SECONDS -> its summary
s1() {
  local port="PORT_$1" key="KEY_$1"
  TOLLGATE_BENCH_KEY=${!key} wrk -t2 -c"$CONNECTIONS" -d"${2}s" -s bench/wrk/s1-payment.lua "http://127.0.0.1:${!port}" \
    | summary
}

# s2 NAME SECONDS -> the same, for reads by id of the payments in NAME's database
s2() {
  local port="PORT_$1" key="KEY_$1"
  TOLLGATE_BENCH_KEY=${!key} TOLLGATE_BENCH_IDS="$WORK/$1.ids" wrk -t2 -c"$CONNECTIONS" -d"${2}s" \
    -s bench/wrk/s2-get.lua "http://127.0.0.1:${!port}" \
    | summary
}

# s3 NAME SECONDS -> the same, for the merchant list's first page
s3() {
  local port="PORT_$1" basic="BASIC_$1"
  TOLLGATE_BENCH_BASIC=${!basic} TOLLGATE_BENCH_OFFSET=0 wrk -t2 -c"$CONNECTIONS" -d"${2}s" \
    -s bench/wrk/s3-list.lua "http://127.0.0.1:${!port}" \
    | summary
}

# seed NAME -> LIST_ROWS payments in NAME's database (as bench/run.sh seeds S3) and BASIC_<NAME>.
# A millisecond apart, so that the first page is seeded rows on both sides: a second apart, it
# reached back 50 s, past the end of B's warm-up (which ends just before the seeding) but not of
# A's, and B's first page was then S1's payments with their cards, customers and addresses, twice
# the JSON: the "position effect" earlier rounds saw, B/A 0.66-0.79 for the same build.
seed() {
  local pgport password port="PORT_$1"
  pgport=$(sed -n 4p "$WORK/$1/postgres/postmaster.pid")
  PGPASSWORD=$(cat "$WORK/$1/postgres/tollgate-password" 2>/dev/null) \
    psql -X -q -h 127.0.0.1 -p "$pgport" -U postgres postgres -v ON_ERROR_STOP=1 -v rows="$LIST_ROWS" \
      -v spacing="'1 millisecond'" -f bench/seed-list.sql >/dev/null
  password=$(awk '/Merchant API user:/ {print $NF}' "$WORK/$1.log")
  printf -v "BASIC_$1" '%s' "$(printf '%s' "demo@tollgate.test:$password" | base64 -w0)"
  local basic="BASIC_$1"
  curl -s -o /dev/null -H "Authorization: Basic ${!basic}" "http://127.0.0.1:${!port}/merchant-api/v1/shops"
}

# ids NAME -> WORK/NAME.ids: up to 20,000 random payments of NAME's embedded database
ids() {
  local pgport
  pgport=$(sed -n 4p "$WORK/$1/postgres/postmaster.pid")
  PGPASSWORD=$(cat "$WORK/$1/postgres/tollgate-password" 2>/dev/null) psql -X -q -At -h 127.0.0.1 -p "$pgport" -U postgres postgres \
    -c "SELECT id FROM payments ORDER BY random() LIMIT 20000" > "$WORK/$1.ids"
}

echo "starting A ($JAR_A) and B ($JAR_B), data in $WORK ..." >&2
start A "$JAR_A" "$JAVA_OPTS_A" "$ENV_A" "$JAVA_A"
start B "$JAR_B" "$JAVA_OPTS_B" "$ENV_B" "$JAVA_B"
echo "warming each up with ${WARM}s of S1 ..." >&2
s1 A "$WARM" >/dev/null
s1 B "$WARM" >/dev/null
if [ "$SCENARIO" = s2 ]; then
  ids A; ids B
  # 10 s left the first measured pair at about 60% of the later ones, on both sides
  s2 A 30 >/dev/null; s2 B 30 >/dev/null
fi
if [ "$SCENARIO" = s3 ]; then
  seed A; seed B
  s3 A 30 >/dev/null; s3 B 30 >/dev/null
fi
echo "$SCENARIO, ${SECS}s per run, ${ROUNDS} runs each, alternating:" >&2
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then order="A B"; else order="B A"; fi
  for name in $order; do echo "$name $(measured "$SCENARIO" "$name" "$SECS")"; done
done | tee "$WORK/runs.txt" >&2

python3 - "$WORK/runs.txt" "$SECS" "$SCENARIO" "$(getconf CLK_TCK)" <<'PY'
import statistics, sys
runs = [line.split() for line in open(sys.argv[1]) if len(line.split()) == 8]
secs = float(sys.argv[2])
unit = "payments/s" if sys.argv[3] == "s1" else "requests/s"
per = "payment" if sys.argv[3] == "s1" else "request"
tick_us = 1e6 / float(sys.argv[4])
for name in "AB":
    mine = [r for r in runs if r[0] == name]
    rate = [int(r[1]) / secs for r in mine]
    p99 = [float(r[3]) for r in mine]
    errors = sum(int(r[4]) for r in mine)  # wrk's errors include its 4xx/5xx count, non2xx= (r[5])
    print(f"{name}: {statistics.median(rate):.1f} {unit} median ({min(rate):.1f}-{max(rate):.1f}), "
          f"p99 {statistics.median(p99):.1f} ms median, errors {errors}")
    service = [int(r[6]) * tick_us / max(int(r[1]), 1) for r in mine]
    database = [int(r[7]) * tick_us / max(int(r[1]), 1) for r in mine]
    print(f"   CPU per {per}: service {statistics.median(service):.0f} us ({min(service):.0f}-{max(service):.0f}), "
          f"database {statistics.median(database):.0f} us ({min(database):.0f}-{max(database):.0f})")
a = [int(r[1]) for r in runs if r[0] == "A"]
b = [int(r[1]) for r in runs if r[0] == "B"]
ratios = [y / x for x, y in zip(a, b)]
print(f"B/A per pair: {' '.join(f'{r:.2f}' for r in ratios)}; median {statistics.median(ratios):.2f}, "
      f"B ahead in {sum(r > 1 for r in ratios)} of {len(ratios)}")
PY
