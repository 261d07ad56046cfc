#!/usr/bin/env bash
# Runs every Go fuzz target of the module, one after another, each for
# FUZZTIME (default 1m): every `func FuzzX(f *testing.F)` at the start of a
# line of a _test.go file, so a new target is run without being listed here.
# FUZZMINIMIZETIME (default 5s) bounds the minimising of each new input (go
# test's default of 60 s, spent on every new interesting input, took most of
# a run on the targets with several byte-slice arguments).
# FUZZFLAGS adds flags to each `go test` (e.g. FUZZFLAGS="-parallel 1" on a
# busy machine). Every target runs even after one fails; the script then
# names the failures and exits 1. A failing input is saved under the
# package's testdata/fuzz/FuzzX/, where `go test` replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-1m}
FUZZMINIMIZETIME=${FUZZMINIMIZETIME:-5s}
read -r -a flags <<<"${FUZZFLAGS:-}"
mapfile -t targets < <(grep -rHo --include='*_test.go' --exclude-dir=examples --exclude-dir=node_modules \
  '^func Fuzz[A-Za-z0-9_]*' . | sort)
if [ "${#targets[@]}" -eq 0 ]; then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=()
for t in "${targets[@]}"; do
  file=${t%%:*}
  name=${t##*func }
  pkg=./$(dirname "${file#./}")
  echo "fuzz: $name in $pkg for $FUZZTIME" >&2
  # -timeout 0: -fuzztime bounds the run; go test's default of 10 minutes
  # would end a longer FUZZTIME as a failure.
  if "$GO" test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZETIME" \
    -timeout 0 "${flags[@]}" "$pkg" 2>&1 | tee "$log"; then
    continue
  fi
  # Go's fuzzing engine can fail a run at its own -fuzztime deadline with
  # "context deadline exceeded" and no input (go.dev/issue/75804), mostly on
  # a busy machine or a short FUZZTIME: that is no finding. A failing input
  # is always written to testdata/fuzz, a hang included (each target fails
  # an input that runs too long).
  if grep -q '^    context deadline exceeded$' "$log" && ! grep -q 'Failing input written to' "$log"; then
    echo "fuzz: $name: go test stopped at its own deadline without a failing input (go.dev/issue/75804): not a finding" >&2
    continue
  fi
  failed+=("$name ($pkg)")
done
if [ "${#failed[@]}" -gt 0 ]; then
  printf 'fuzz: failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, each for $FUZZTIME, found nothing" >&2
