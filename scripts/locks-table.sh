#!/usr/bin/env bash
# locks-table.sh DIR...: the table "which lock survives which fault" of
# docs/gate.md, from the summary.json of one or more results folders of
# `hammer gate --matrix scenarios/locks.matrix` (make gate-locks writes
# results/gate-locks). One row per fault, one column per mode and lock; a
# cell says what the runs of that cell showed, and in how many of the
# folders: "safe" (valid), "oversold" (invalid with seats sold twice),
# "invalid" (another violation), "unknown"; "-" where no folder ran it.
# Needs jq.
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 DIR..." >&2; exit 2; }
for d in "$@"; do
  [[ -f "$d/summary.json" ]] || { echo "$0: $d/summary.json: no such file" >&2; exit 2; }
done

# One line per run of every folder: mode, lock, the fault with the cell's
# other options ("pause+extend"), what it showed.
runs=$(jq -r '.runs[] | (.lock // "hammer") as $lock | .mode as $mode
  | (.name | ltrimstr($mode) | ltrimstr("/") | rtrimstr("+" + $lock)) as $rest
  | [.mode, $lock,
     (if $rest == "" then "none" elif ($rest | startswith("+")) then "none" + $rest else $rest end),
     (if .verdict == "valid" then "safe"
      elif .verdict == "invalid" and .oversold > 0 then "oversold"
      else .verdict end)] | @tsv' $(printf '%s/summary.json ' "$@"))

modes=(lock-only lock-plus-update)
locks=(hammer redsync redislock)
faults=$(printf '%s\n' "$runs" | awk -F'\t' '!seen[$3]++ { print $3 }')

header="| fault |" rule="|---|"
for m in "${modes[@]}"; do
  for l in "${locks[@]}"; do header+=" \`$m\` $l |"; rule+="---|"; done
done
echo "$header"
echo "$rule"
for f in $faults; do
  row="| \`$f\` |"
  for m in "${modes[@]}"; do
    for l in "${locks[@]}"; do
      cell=$(printf '%s\n' "$runs" | awk -F'\t' -v m="$m" -v l="$l" -v f="$f" '
        $1 == m && $2 == l && $3 == f { n++; c[$4]++ }
        END {
          if (n == 0) { print "-"; exit }
          out = ""
          for (k in c) out = out (out == "" ? "" : ", ") (k == "oversold" ? "**oversold**" : k) (n > 1 ? " " c[k] "/" n : "")
          print out
        }')
      row+=" $cell |"
    done
  done
  echo "$row"
done
