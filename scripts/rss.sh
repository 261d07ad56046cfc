#!/usr/bin/env bash
# rss.sh COMMAND [ARGS...]: run COMMAND (a hammer run, load or gate) and
# report the peak resident memory of every hammer process it started: the
# coordinator and each worker (the processes whose executable is the
# coordinator's), sampled every 50 ms from /proc/PID/status (VmHWM, the
# process's own high-water mark, so a sample late by a few ms still sees
# the peak). Redis and PostgreSQL are not counted. Prints one line per
# process, then the sum of the peaks (an upper bound of what hammer held
# at once), the wall time and COMMAND's exit code, and exits with that
# code.
#
# Example: scripts/rss.sh ./bin/hammer run --mode lock-plus-update --procs 8 --goroutines 2500 --stack local --quiet
set -uo pipefail

[[ $# -ge 1 ]] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }

declare -A peak name
start=$(date +%s.%N)
"$@" &
root=$!
exe=$(readlink "/proc/$root/exe" 2>/dev/null || true)

# descendants prints root and every process below it.
descendants() {
  local todo=("$root") p c
  while [[ ${#todo[@]} -gt 0 ]]; do
    p=${todo[0]}
    todo=("${todo[@]:1}")
    echo "$p"
    for c in $(cat "/proc/$p/task/"*/children 2>/dev/null); do todo+=("$c"); done
  done
}

sample() {
  local p kb
  [[ -n $exe ]] || exe=$(readlink "/proc/$root/exe" 2>/dev/null || true)
  for p in $(descendants); do
    [[ $(readlink "/proc/$p/exe" 2>/dev/null) == "$exe" ]] || continue
    kb=$(awk '/^VmHWM:/ {print $2}' "/proc/$p/status" 2>/dev/null) || continue
    [[ -n $kb ]] || continue
    if [[ -z ${peak[$p]:-} || $kb -gt ${peak[$p]} ]]; then
      peak[$p]=$kb
      name[$p]=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-60)
    fi
  done
}

while kill -0 "$root" 2>/dev/null; do
  sample
  sleep 0.05
done
wait "$root"
code=$?
end=$(date +%s.%N)

sum=0
for p in "${!peak[@]}"; do
  printf 'pid %-8s peak %8d KiB  %s\n' "$p" "${peak[$p]}" "${name[$p]}"
  sum=$((sum + peak[$p]))
done
printf 'hammer processes: %d, sum of peak RSS: %d MiB, wall %.1f s, exit %d\n' \
  "${#peak[@]}" $((sum / 1024)) "$(echo "$end - $start" | bc)" "$code"
exit "$code"
