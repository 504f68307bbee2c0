# Sourced by the bench scripts: points libpq's PG* variables (which psql and pgbench read) at the
# PostgreSQL server of TOLLGATE_DB_URL=jdbc:postgresql://HOST[:PORT]/DATABASE, as user
# TOLLGATE_DB_USER (default postgres) with TOLLGATE_DB_PASSWORD. Sets GIVEN_DB to DATABASE.
pg_server_from_url() {
  if [[ ! "${TOLLGATE_DB_URL:-}" =~ ^jdbc:postgresql://([^/:?]+)(:([0-9]+))?/([^?]+) ]]; then
    echo "$0: TOLLGATE_DB_URL must look like jdbc:postgresql://HOST:PORT/DATABASE" >&2
    exit 2
  fi
  export PGHOST=${BASH_REMATCH[1]} PGPORT=${BASH_REMATCH[3]:-5432} PGDATABASE=${BASH_REMATCH[4]}
  export PGUSER=${TOLLGATE_DB_USER:-postgres} PGPASSWORD=${TOLLGATE_DB_PASSWORD:-}
  GIVEN_DB=$PGDATABASE
}

# create_bench_db NAME: a new, empty database on that server, or exit with why not.
create_bench_db() {
  PGDATABASE=$GIVEN_DB psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE $1" >/dev/null \
    || { echo "$0: could not create database $1 on $PGHOST:$PGPORT as $PGUSER (it needs CREATEDB)" >&2; exit 2; }
}

# drop_bench_db NAME
drop_bench_db() {
  PGDATABASE=$GIVEN_DB psql -X -q -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" >/dev/null 2>&1 || true
}
