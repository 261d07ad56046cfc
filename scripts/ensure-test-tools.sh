#!/usr/bin/env bash
# ensure-test-tools.sh: what `make test` needs beside Redis and PostgreSQL
# (scripts/ensure-services.sh): Node and npm, to install the Node and
# TypeScript example services' packages (make examples); PHP with pdo_pgsql
# and Predis, which examples/ticketd-php runs on (Debian's php-cli,
# php-pgsql, php-nrk-predis); and Chromium, which the tests of the pages
# hammer writes and serves drive headless (internal/browsertest).
# Missing ones are installed with apt-get when running as root; anyone else
# is told exactly what to install. Exits non-zero when one cannot be had.
set -euo pipefail

missing=()
if ! command -v node >/dev/null 2>&1; then
  missing+=(nodejs npm)
elif ! command -v npm >/dev/null 2>&1; then
  missing+=(npm)
fi
if ! command -v php >/dev/null 2>&1; then
  missing+=(php-cli php-pgsql php-nrk-predis)
else
  php -m | grep -qx pdo_pgsql || missing+=(php-pgsql)
  php -r 'exit(stream_resolve_include_path("Predis/autoload.php") === false ? 1 : 0);' || missing+=(php-nrk-predis)
fi
if [[ -z ${HAMMER_CHROMIUM:-} ]] && ! command -v chromium >/dev/null 2>&1 &&
  ! command -v chromium-browser >/dev/null 2>&1 && ! command -v google-chrome >/dev/null 2>&1; then
  missing+=(chromium)
fi
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-test-tools: installing ${missing[*]} with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi

cat >&2 <<MSG
make test needs ${missing[*]}: install them (sudo apt-get install ${missing[*]}),
or set HAMMER_CHROMIUM to a Chromium or Chrome binary for the browser tests.
MSG
exit 1
