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
failed=()
for t in "${targets[@]}"; do
  file=${t%%:*}
  name=${t##*func }
  pkg=./$(dirname "${file#./}")
  echo "fuzz: $name in $pkg for $FUZZTIME" >&2
  # -timeout 0: -fuzztime bounds the run; go test's default of 10 minutes
  # would end a longer FUZZTIME as a failure.
  if ! "$GO" test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZETIME" -timeout 0 "${flags[@]}" "$pkg"; then
    failed+=("$name ($pkg)")
  fi
done
if [ "${#failed[@]}" -gt 0 ]; then
  printf 'fuzz: failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, each for $FUZZTIME, found nothing" >&2
