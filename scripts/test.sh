#!/usr/bin/env bash
# test.sh [go test flags...]: make test's tests. Every package runs under
# the race detector except cmd/hammer, whose end-to-end tests of the CLI
# run beside them, at the same time, without it: they race hammer's own
# worker processes, whose code the packages' tests (internal/driver,
# internal/worker, internal/agent...) already race under the detector,
# and under it they took 200 of the suite's 257 s on 2 cores. make
# test-race-cli runs them under it too; .ci/run does. cmd/hammer's output
# is printed once it is done, after the packages' own.
#
# Exit status: 0 if both passed, else the first non-zero one.
set -uo pipefail
cd "$(dirname "$0")/.."
export HAMMER_REQUIRE_SERVICES=1
go=${GO:-go}
cli_out=$(mktemp)
cli=
cleanup() {
	[[ -n $cli ]] && kill "$cli" 2>/dev/null
	rm -f "$cli_out"
}
trap cleanup EXIT
"$go" test -count=1 -timeout 20m "$@" ./cmd/hammer >"$cli_out" 2>&1 &
cli=$!
mapfile -t pkgs < <("$go" list ./... | grep -v '/cmd/hammer$')
if ((${#pkgs[@]} == 0)); then
	echo "test.sh: go list found no packages" >&2
	exit 1
fi
"$go" test -race -count=1 -timeout 20m "$@" "${pkgs[@]}"
race=$?
wait "$cli"
cli_rc=$?
cli=
cat "$cli_out"
if ((race != 0)); then
	exit "$race"
fi
exit "$cli_rc"
