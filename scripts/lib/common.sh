# Shared by scripts/serve and scripts/test. Sourced, not run.

# The project's own virtual environment, (re)installed whenever
# pyproject.toml changes, so a fresh machine needs nothing by hand.
ensure_venv() {
  local python=${PYTHON:-python3}
  if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv"
    "$python" -m venv .venv
  fi
  local stamp=.venv/.facets-installed
  local want
  want=$(sha256sum pyproject.toml | cut -d' ' -f1)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "== installing the project and its dependencies into .venv"
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e ".[dev]"
    echo "$want" > "$stamp"
  fi
  # shellcheck disable=SC1091
  . .venv/bin/activate
}

ensure_postgres() {
  if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then return 0; fi
  echo "== starting PostgreSQL"
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  local version
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  for _ in $(seq 1 30); do
    pg_isready -q -h 127.0.0.1 -p 5432 && return 0
    sleep 1
  done
  echo "PostgreSQL did not start" >&2
  return 1
}

ensure_redis() {
  if redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then return 0; fi
  echo "== starting Redis"
  if ! command -v redis-server >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  fi
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/facets.log
  for _ in $(seq 1 30); do
    redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && return 0
    sleep 1
  done
  echo "Redis did not start" >&2
  return 1
}
