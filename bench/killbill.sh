#!/usr/bin/env bash
# Kill Bill beside Tollgate: the issue's yardstick, a mature Java payments platform (Kill Bill
# 0.22, its built-in external payment plugin), creating payments on the same machine and the
# same PostgreSQL server, in the same table as bench/run.sh and as a ratio to the same ceiling.
#
# Needs a PostgreSQL server of your own (Kill Bill has no embedded one for PostgreSQL), given as
# the service is given one: TOLLGATE_DB_URL=jdbc:postgresql://HOST:PORT/DB, TOLLGATE_DB_USER,
# TOLLGATE_DB_PASSWORD, a user that may create databases; plus a JDK (17 works with the
# --add-opens below), wrk, pgbench, psql, curl, unzip. Kill Bill's war and a Jetty runner come
# from Maven Central (MAVEN_CENTRAL to use a mirror) and stay in bench/target/killbill.
#
# Two rows, each on a fresh database with Kill Bill's schema: Kill Bill as shipped, which hashes
# the tenant's API secret on every request (org.killbill.security.shiroNbHashIterations,
# 200,000 rounds), and with that hashing turned down to one round. Each is KB_WARMUP seconds
# (default 60) of load unmeasured, then DURATION (default 20) measured, CONNECTIONS (default 16)
# connections; each request is one PURCHASE on one of KB_ACCOUNTS (default 64) accounts.
# CEILING (tx/s) skips measuring the ceiling here and uses the given one (bench/run.sh passes its
# own); KB_ROWS_FILE makes the script append its rows there instead of printing a table.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-20}
CONNECTIONS=${CONNECTIONS:-16}
KB_WARMUP=${KB_WARMUP:-60}
KB_ACCOUNTS=${KB_ACCOUNTS:-64}
KB_VERSION=${KB_VERSION:-0.22.26}
JETTY_RUNNER_VERSION=9.4.53.v20231009

for tool in wrk pgbench psql python3 java curl unzip; do
  if ! command -v "$tool" >/dev/null; then
    echo "bench/killbill.sh needs $tool (Debian: apt-get install wrk postgresql-client python3 curl unzip)" >&2
    exit 2
  fi
done
if [ -z "${TOLLGATE_DB_URL:-}" ]; then
  echo "bench/killbill.sh needs a PostgreSQL server: TOLLGATE_DB_URL=jdbc:postgresql://HOST:PORT/DB," \
    "TOLLGATE_DB_USER, TOLLGATE_DB_PASSWORD (a user that may create databases)" >&2
  exit 2
fi
. bench/pg-server.sh
. bench/table.sh
. bench/steps.sh
pg_server_from_url

CACHE=bench/target/killbill
CENTRAL=${MAVEN_CENTRAL:-https://repo1.maven.org/maven2}
WAR_DIR="$CACHE/killbill-$KB_VERSION"
RUNNER="$CACHE/jetty-runner-$JETTY_RUNNER_VERSION.jar"
mkdir -p "$CACHE"
# fetch PATH FILE: one file from Maven Central, checked against Central's SHA-1 of it.
fetch() {
  curl -sSf -o "$2.tmp" "$CENTRAL/$1"
  [ "$(curl -sSf "$CENTRAL/$1.sha1" | cut -c1-40)" = "$(sha1sum "$2.tmp" | cut -c1-40)" ] \
    || { echo "bench/killbill.sh: $1 does not match Maven Central's checksum" >&2; rm -f "$2.tmp"; exit 1; }
  mv "$2.tmp" "$2"
}
if [ ! -f "$RUNNER" ]; then
  echo "fetching Jetty's runner $JETTY_RUNNER_VERSION ..." >&2
  fetch "org/eclipse/jetty/jetty-runner/$JETTY_RUNNER_VERSION/jetty-runner-$JETTY_RUNNER_VERSION.jar" "$RUNNER"
fi
if [ ! -d "$WAR_DIR" ]; then
  echo "fetching Kill Bill $KB_VERSION ..." >&2
  fetch "org/kill-bill/billing/killbill-profiles-killbill/$KB_VERSION/killbill-profiles-killbill-$KB_VERSION.war" \
    "$CACHE/killbill-$KB_VERSION.war"
  rm -rf "$WAR_DIR.tmp"
  unzip -q "$CACHE/killbill-$KB_VERSION.war" -d "$WAR_DIR.tmp"
  mv "$WAR_DIR.tmp" "$WAR_DIR"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tollgate-killbill.XXXXXX")
KB_PID=""; DB=""
cleanup() {
  [ -n "$KB_PID" ] && kill "$KB_PID" 2>/dev/null && wait "$KB_PID" 2>/dev/null || true
  [ -n "$DB" ] && [ "${KEEP_DATA:-0}" != 1 ] && drop_bench_db "$DB"
  return 0
}
trap cleanup EXIT
# wrk ends normally on Ctrl+C, and the script would go on with the next step: stop it here
trap 'exit 130' INT TERM

# Kill Bill's schema for PostgreSQL: its compatibility domains and functions first, then each
# module's ddl.sql, all as the war ships them.
LIB="$WAR_DIR/WEB-INF/lib"
{
  unzip -p "$LIB"/killbill-util-*.jar org/killbill/billing/util/ddl-postgresql.sql
  for jar in "$LIB"/killbill-*.jar; do
    for entry in $(unzip -Z1 "$jar" | grep -E '(^|/)ddl\.sql$' || true); do unzip -p "$jar" "$entry"; done
  done
} > "$WORK/ddl.sql"

# Kill Bill 0.22 was built for Java 8 and 11; on 17 its OSGi framework and Guice reach into the
# JDK by reflection, which these open to it.
OPENS=()
for package in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.security java.text \
    java.util java.util.concurrent java.util.jar sun.nio.ch sun.net.www sun.net.www.protocol.jar \
    sun.net.www.protocol.file sun.net.www.protocol.http sun.net.www.protocol.https sun.net.www.protocol.jrt \
    sun.security.util; do
  OPENS+=(--add-opens "java.base/$package=ALL-UNNAMED")
done

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
TICKS=$(getconf CLK_TCK)
ROWS=()
API_KEY=bench API_SECRET=bench-secret

# kb_run NAME [HASH_ITERATIONS]: Kill Bill on a fresh database, loaded; appends a table row.
kb_run() {
  local name=$1 iterations=${2:-} port base log props step
  DB="killbill_bench_$(date +%Y%m%d%H%M%S)"
  create_bench_db "$DB"
  PGDATABASE=$DB PGOPTIONS='-c client_min_messages=warning' psql -X -q -v ON_ERROR_STOP=1 -f "$WORK/ddl.sql" >/dev/null
  if [ -z "${CEILING:-}" ]; then
    echo "S5: the database's own ceiling (pgbench, -c 16 -j 2) ..." >&2
    PGDATABASE=$DB psql -X -q -f bench/ceiling-schema.sql >/dev/null
    PGDATABASE=$DB step kb-ceiling pgbench -n -c 16 -j 2 -T "$DURATION" -f bench/ceiling.sql
    CEILING=$(awk '/^tps/ {print $3; exit}' "$WORK/kb-ceiling.out")
    [ -n "$CEILING" ] || step_failed kb-ceiling "printed no tps line"
    ROWS+=("S5 pgbench ceiling transaction (tx/s)|$(printf '%.0f' "$CEILING")|-|-|0|-|-")
    PGDATABASE=$DB psql -X -q -c "SET client_min_messages = warning; DROP SCHEMA bench_ceiling CASCADE" >/dev/null
  fi
  port=$(free_port)
  base="http://127.0.0.1:$port"
  log="$WORK/killbill-$DB.log"
  props="$WORK/$DB.properties"
  cat > "$props" <<PROPS
org.killbill.dao.url=jdbc:postgresql://$PGHOST:$PGPORT/$DB
org.killbill.dao.user=$PGUSER
org.killbill.dao.password=$PGPASSWORD
org.killbill.billing.osgi.dao.url=jdbc:postgresql://$PGHOST:$PGPORT/$DB
org.killbill.billing.osgi.dao.user=$PGUSER
org.killbill.billing.osgi.dao.password=$PGPASSWORD
org.killbill.osgi.bundle.install.dir=$WORK/bundles
org.killbill.server.updateCheck.skip=true
PROPS
  [ -z "$iterations" ] || echo "org.killbill.security.shiroNbHashIterations=$iterations" >> "$props"
  echo "starting Kill Bill $KB_VERSION ($name; log in $log) ..." >&2
  java -Xmx1g "${OPENS[@]}" -Djava.security.egd=file:/dev/./urandom -Dorg.killbill.server.properties="file://$props" \
    -jar "$RUNNER" --port "$port" --path / "$WAR_DIR" > "$log" 2>&1 &
  KB_PID=$!
  for _ in $(seq 1 300); do grep -q "Kill Bill server has started" "$log" && break; kill -0 "$KB_PID" 2>/dev/null || break; sleep 1; done
  grep -q "Kill Bill server has started" "$log" || { tail -50 "$log" >&2; exit 1; }

  local admin=(-u admin:password -H 'Content-Type: application/json' -H 'X-Killbill-CreatedBy: bench')
  local tenant=(-H "X-Killbill-ApiKey: $API_KEY" -H "X-Killbill-ApiSecret: $API_SECRET")
  curl -sf -o /dev/null "${admin[@]}" -X POST "$base/1.0/kb/tenants" \
    -d "{\"apiKey\":\"$API_KEY\",\"apiSecret\":\"$API_SECRET\"}"
  : > "$WORK/accounts.txt"
  local i account
  for i in $(seq 1 "$KB_ACCOUNTS"); do
    account=$(curl -sf -D - -o /dev/null "${admin[@]}" "${tenant[@]}" -X POST "$base/1.0/kb/accounts" \
      -d "{\"name\":\"Bench $i\",\"externalKey\":\"bench-$i\",\"currency\":\"EUR\"}" \
      | tr -d '\r' | awk -F/ 'tolower($0) ~ /^location:/ {print $NF}')
    curl -sf -o /dev/null "${admin[@]}" "${tenant[@]}" -X POST \
      "$base/1.0/kb/accounts/$account/paymentMethods?isDefault=true" -d '{"pluginName":"__EXTERNAL_PAYMENT__"}'
    echo "$account" >> "$WORK/accounts.txt"
  done

  export KB_BENCH_ACCOUNTS="$WORK/accounts.txt" KB_BENCH_BASIC=$(printf 'admin:password' | base64 -w0)
  export KB_BENCH_API_KEY=$API_KEY KB_BENCH_API_SECRET=$API_SECRET
  echo "Kill Bill ($name): ${KB_WARMUP}s of load unmeasured, then ${DURATION}s measured ..." >&2
  step="killbill${iterations:+-hashing-$iterations}"
  wrk_step "$step-warm" -t2 -c"$CONNECTIONS" -d"${KB_WARMUP}s" -s bench/wrk/kb-payment.lua "$base"
  local t0 t1 requests units seconds p50 p99 errors non2xx rate cpu
  t0=$(awk '{print $14 + $15}' "/proc/$KB_PID/stat")
  wrk_step "$step" -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s bench/wrk/kb-payment.lua "$base"
  t1=$(awk '{print $14 + $15}' "/proc/$KB_PID/stat")
  eval "$(sed -n 's/^RESULT //p' "$WORK/$step.out")"
  rate=$(python3 -c "print(round($units / $seconds, 1))")
  cpu=$(python3 -c "print(round(($t1 - $t0) / $TICKS / $seconds * 100))")
  ROWS+=("KB Kill Bill $KB_VERSION, $name (payments/s)|$rate|$p50|$p99|$errors|$cpu|-")

  kill "$KB_PID"; wait "$KB_PID" 2>/dev/null || true; KB_PID=""
  [ "${KEEP_DATA:-0}" = 1 ] || drop_bench_db "$DB"
  DB=""
}

kb_run "as shipped"
kb_run "secret hashing turned down" 1

if [ -n "${KB_ROWS_FILE:-}" ]; then
  printf '%s\n' "${ROWS[@]}" >> "$KB_ROWS_FILE"
  exit 0
fi
echo
echo "Kill Bill $KB_VERSION · $(date -u +%Y-%m-%dT%H:%M:%SZ) · $(nproc) cores · ${DURATION}s measured after ${KB_WARMUP}s · $CONNECTIONS connections · -Xmx1g · PostgreSQL at $PGHOST:$PGPORT"
print_table
[ "$TABLE_ERRORS" = 0 ] || exit 1
