# Source me from .ci/run: install Debian's PostgreSQL, start its cluster, create the test
# role and database, and export GUTSKIT_TEST_PG_URL so the server tests (tests/test_server*.py)
# also run against PostgreSQL (they run on SQLite only when it is unset).
# Works as root (containers) or with sudo. Idempotent: a second run changes nothing.

pg_sudo() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
pg_as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi; }

if ! command -v pg_ctlcluster >/dev/null || [ -z "$(ls /usr/lib/postgresql 2>/dev/null)" ]; then
  pg_sudo apt-get update -qq
  pg_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi
PG_VERSION=$(ls /usr/lib/postgresql | sort -V | tail -1)
if ! pg_sudo pg_lsclusters -h | awk '{print $2}' | grep -qx main; then
  pg_sudo pg_createcluster "$PG_VERSION" main >/dev/null
fi
pg_online() { pg_sudo pg_lsclusters -h | awk '$2 == "main" {print $4}' | grep -qx online; }
if ! pg_online && ! pg_sudo pg_ctlcluster "$PG_VERSION" main start; then
  # Another run on this machine may be starting the same cluster at the same moment (its
  # postmaster holds the lock file): wait up to 30 s for it to come online.
  for _ in $(seq 60); do pg_online && break; sleep 0.5; done
  pg_online || { echo "PostgreSQL's cluster main did not start" >&2; exit 1; }
fi
pg_as_postgres psql -q -v ON_ERROR_STOP=1 <<'SQL'
SELECT 'CREATE ROLE gutskit LOGIN PASSWORD ''gutskit'''
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'gutskit') \gexec
SELECT 'CREATE DATABASE gutskit_test OWNER gutskit'
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'gutskit_test') \gexec
SQL
PG_PORT=$(pg_sudo pg_lsclusters -h | awk '$2 == "main" {print $3}')
export GUTSKIT_TEST_PG_URL="postgresql+psycopg://gutskit:gutskit@127.0.0.1:${PG_PORT}/gutskit_test"
echo "PostgreSQL $PG_VERSION for the server tests: $GUTSKIT_TEST_PG_URL"
