#!/usr/bin/env bash
# bench.sh [hammer-bench flags...]: build hammer and the bench program, then
# measure hammer against its anchors on servers of the bench's own (one
# redis-server, one PostgreSQL cluster, as hammer's local stack starts them)
# and print a Markdown table of ratios with their goals. Progress goes to
# stderr, the tables to stdout. See BENCHMARKS.md.
#
# Example: scripts/bench.sh --rounds 5
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
go build -o bin/hammer ./cmd/hammer
go build -o bin/hammer-bench ./cmd/hammer-bench
# exec: a stop signal reaches the bench, which stops hammer and its servers.
exec bin/hammer-bench --hammer bin/hammer "$@"
