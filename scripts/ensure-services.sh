#!/usr/bin/env bash
# ensure-services.sh: make sure hammer can get a Redis and a PostgreSQL.
#
# hammer's local stack starts redis-server and PostgreSQL from their binaries.
# Nothing is needed when HAMMER_REDIS_URL and HAMMER_PG_URL point at running
# servers, or when a Docker engine answers. Otherwise the missing server
# packages are installed with apt-get when running as root; anyone else is
# told exactly what to install. Exits non-zero when servers cannot be had.
#
# --local: the local binaries are wanted (hammer --stack local), whatever the
# URLs or a Docker engine offer; the GitHub Action (action.yml) passes it.
set -euo pipefail

local_only=false
if [[ ${1:-} == --local ]]; then
  local_only=true
elif [[ $# -gt 0 ]]; then
  echo "usage: $0 [--local]" >&2
  exit 2
fi
if ! $local_only && [[ -n "${HAMMER_REDIS_URL:-}" && -n "${HAMMER_PG_URL:-}" ]]; then
  exit 0
fi
if ! $local_only && command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  exit 0
fi

missing=()
if ! command -v redis-server >/dev/null 2>&1 && [[ ! -x /usr/bin/redis-server ]]; then
  missing+=(redis-server)
fi
if ! command -v postgres >/dev/null 2>&1 && ! compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; then
  missing+=(postgresql)
fi
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-services: installing ${missing[*]} with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi

cat >&2 <<MSG
hammer needs ${missing[*]} to start its own Redis and PostgreSQL. Either:
  - install them:  sudo apt-get install ${missing[*]}
  - start a Docker engine (hammer then uses testcontainers), or
  - point hammer at running servers: export HAMMER_REDIS_URL=redis://host:6379/0 HAMMER_PG_URL=postgres://user:pass@host:5432/db
MSG
exit 1
