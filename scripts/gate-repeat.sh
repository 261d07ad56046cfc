#!/usr/bin/env bash
# gate-repeat.sh [N] [hammer gate flags...]: run `hammer gate` N times
# (default 20) on one machine and check that every run exits 0 with the same
# verdict for every cell. Prints one line per run (exit code, wall time, a
# digest of the verdicts) and a summary; exits non-zero if any run failed or
# the verdicts differed.
#
# HOG=K runs K CPU busy loops (sh -c 'while :; do :; done') beside the gate
# for the whole series, the load of a shared CI runner; they are stopped on
# every exit path.
#
# Example: HOG=2 scripts/gate-repeat.sh 20 --stack local
set -euo pipefail
cd "$(dirname "$0")/.."

n=${1:-20}
shift || true
hog=${HOG:-0}
out="results/gate-repeat-$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$out"
go build -o bin/hammer ./cmd/hammer

hogs=()
stop_hogs() { [[ ${#hogs[@]} -eq 0 ]] || kill "${hogs[@]}" 2>/dev/null || true; }
trap stop_hogs EXIT
for _ in $(seq 1 "$hog"); do
  sh -c 'while :; do :; done' &
  hogs+=($!)
done

first="" same=0 failed=0 times=()
for i in $(seq 1 "$n"); do
  start=$(date +%s%N)
  set +e
  ./bin/hammer gate --quiet --out "$out/run-$i" "$@" > "$out/run-$i.txt" 2>&1
  code=$?
  set -e
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  times+=("$ms")
  # The verdict table: cell name, expectation and verdict of every row,
  # found from the right (the columns before them, PEAK among them, vary
  # from run to run).
  verdicts=$(awk 'NR > 1 && NF == 0 { exit } NR > 1 { for (e = NF; e > 1 && $e != "safe" && $e != "unsafe"; e--) ; v = $e; for (j = e + 1; j <= NF; j++) v = v " " $j; print $1, v }' "$out/run-$i.txt")
  digest=$(printf '%s\n' "$verdicts" | sha256sum | cut -c1-12)
  [[ -z "$first" ]] && { first=$digest; printf '%s\n' "$verdicts" > "$out/verdicts.txt"; }
  [[ "$digest" == "$first" ]] && same=$((same + 1))
  [[ $code -ne 0 ]] && failed=$((failed + 1))
  printf 'run %2d: exit %d, %3d.%ds, verdicts %s\n' "$i" "$code" $((ms / 1000)) $((ms % 1000 / 100)) "$digest"
done

sorted=$(printf '%s\n' "${times[@]}" | sort -n)
printf '\n%d of %d runs gave the verdicts of run 1 (%d cells, see %s/verdicts.txt); %d runs exited non-zero; %d CPU busy loops ran beside them\n' \
  "$same" "$n" "$(wc -l < "$out/verdicts.txt")" "$out" "$failed" "$hog"
secs() { printf '%d.%ds' $(($1 / 1000)) $(($1 % 1000 / 100)); }
printf 'wall time: min %s, median %s, max %s\n' \
  "$(secs "$(echo "$sorted" | head -1)")" "$(secs "$(echo "$sorted" | sed -n "$(( (n + 1) / 2 ))p")")" "$(secs "$(echo "$sorted" | tail -1)")"
[[ $same -eq $n && $failed -eq 0 ]]
