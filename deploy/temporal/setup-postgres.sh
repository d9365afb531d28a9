#!/bin/sh
# Creates (or upgrades) the Temporal and visibility schemas in PostgreSQL. Runs in the
# temporalio/admin-tools image before the server starts; idempotent.
# Environment (upstream admin-tools conventions): POSTGRES_SEEDS, DB_PORT, POSTGRES_USER, SQL_PASSWORD.
set -eu

: "${POSTGRES_SEEDS:?POSTGRES_SEEDS is required}"
: "${POSTGRES_USER:?POSTGRES_USER is required}"
PORT="${DB_PORT:-5432}"
SCHEMA_DIR=/etc/temporal/schema/postgresql/v12

echo "Waiting for PostgreSQL at ${POSTGRES_SEEDS}:${PORT} ..."
until nc -z -w 5 "${POSTGRES_SEEDS}" "${PORT}"; do sleep 1; done

# temporal-sql-tool reads the password from SQL_PASSWORD itself (kept out of the process list).
: "${SQL_PASSWORD:?SQL_PASSWORD is required}"
sql() {
  temporal-sql-tool --plugin postgres12 --ep "${POSTGRES_SEEDS}" -u "${POSTGRES_USER}" -p "${PORT}" "$@"
}

for db in temporal temporal_visibility; do
  # `create` fails when the database exists; that is fine on a second start.
  sql --db "$db" create || echo "database $db exists"
done
# setup-schema creates the version table (it fails when that exists: a later start); update-schema
# then applies whatever versions are missing, and fails loudly on a real problem.
sql --db temporal setup-schema -v 0.0 || echo "temporal: schema versioning in place"
sql --db temporal update-schema -d "${SCHEMA_DIR}/temporal/versioned"
sql --db temporal_visibility setup-schema -v 0.0 || echo "temporal_visibility: schema versioning in place"
sql --db temporal_visibility update-schema -d "${SCHEMA_DIR}/visibility/versioned"
echo "PostgreSQL schemas ready"
