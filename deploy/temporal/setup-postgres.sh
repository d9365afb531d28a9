#!/bin/sh
# Creates (or upgrades) the Temporal and visibility schemas in PostgreSQL; idempotent. The same
# script runs in both topologies: in the temporalio/admin-tools image before the compose server
# starts, and natively from `npm run cluster` (tools/temporal-server/cluster.ts) with the SQL tool
# built from go.temporal.io/server/cmd/tools/sql@v1.29.1. The schemas are the ones embedded in
# the tool (--schema-name), so no schema directory is needed.
# Environment (upstream admin-tools conventions): POSTGRES_SEEDS, DB_PORT, POSTGRES_USER,
# SQL_PASSWORD; TEMPORAL_SQL_TOOL (default: temporal-sql-tool on PATH).
set -eu

: "${POSTGRES_SEEDS:?POSTGRES_SEEDS is required}"
: "${POSTGRES_USER:?POSTGRES_USER is required}"
PORT="${DB_PORT:-5432}"
SQL_TOOL="${TEMPORAL_SQL_TOOL:-temporal-sql-tool}"

echo "Waiting for PostgreSQL at ${POSTGRES_SEEDS}:${PORT} ..."
attempt=0
until
  if command -v pg_isready >/dev/null 2>&1; then
    pg_isready -q -h "${POSTGRES_SEEDS}" -p "${PORT}"
  else
    nc -z -w 5 "${POSTGRES_SEEDS}" "${PORT}"
  fi
do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 120 ]; then echo "PostgreSQL did not answer" >&2; exit 1; fi
  sleep 1
done

# temporal-sql-tool reads the password from SQL_PASSWORD itself (kept out of the process list).
: "${SQL_PASSWORD:?SQL_PASSWORD is required}"
sql() {
  "${SQL_TOOL}" --plugin postgres12 --ep "${POSTGRES_SEEDS}" -u "${POSTGRES_USER}" -p "${PORT}" "$@"
}

for db in temporal temporal_visibility; do
  # `create` fails when the database exists; that is fine on a second start.
  sql --db "$db" create >/dev/null 2>&1 && echo "database $db created" || echo "database $db exists"
done
# setup-schema creates the version table (it fails when that exists: a later start); update-schema
# then applies whatever versions are missing, and fails loudly on a real problem.
sql --db temporal setup-schema -v 0.0 >/dev/null 2>&1 || echo "temporal: schema versioning in place"
sql --db temporal update-schema --schema-name postgresql/v12/temporal
sql --db temporal_visibility setup-schema -v 0.0 >/dev/null 2>&1 || echo "temporal_visibility: schema versioning in place"
sql --db temporal_visibility update-schema --schema-name postgresql/v12/visibility
echo "PostgreSQL schemas ready"
