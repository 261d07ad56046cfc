#!/usr/bin/env bash
# test.sh [go test flags...]: make test's tests. Every package runs under
# the race detector but cmd/hammer, whose end-to-end tests of the CLI run
# at the same time beside them without it: they race hammer's own worker
# processes, whose code the packages' tests (internal/driver,
# internal/worker, internal/agent...) already race under the detector,
# and under it cmd/hammer alone took 220 of the suite's 257 s on 2 cores.
# make test-race-cli runs them under it too; .ci/run does. The packages'
# output streams; cmd/hammer's is printed once both are done. Flags only:
# they go to both runs.
#
# Exit status: the race-detected packages' if they failed, else
# cmd/hammer's. Ctrl-C or a stop signal stops both runs, the test
# binaries and what they started.
set -uo pipefail
cd "$(dirname "$0")/.."
export HAMMER_REQUIRE_SERVICES=1
go=${GO:-go}

all=$("$go" list ./...) || exit
mapfile -t pkgs < <(grep -v '/cmd/hammer$' <<<"$all")

cli_out=$(mktemp)
groups=()
stop() {
	((${#groups[@]})) && kill -TERM -- "${groups[@]/#/-}" 2>/dev/null
	rm -f "$cli_out"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# Each run in a process group of its own (set -m), so that a stop signal
# reaches the test binaries go test started, not go test alone.
set -m
"$go" test -count=1 -timeout 20m "$@" ./cmd/hammer </dev/null >"$cli_out" 2>&1 &
cli=$!
"$go" test -race -count=1 -timeout 20m "$@" "${pkgs[@]}" </dev/null &
race=$!
set +m
groups=("$cli" "$race")

wait "$race"
race_rc=$?
wait "$cli"
cli_rc=$?
groups=()
cat "$cli_out"
if ((race_rc != 0)); then
	exit "$race_rc"
fi
exit "$cli_rc"
