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
# COMMAND's executable, resolved as the kernel shows it in /proc/PID/exe:
# the coordinator and its workers run it (reading it from the first
# process instead races with the shell's exec).
exe=$(readlink -f "$(command -v "$1")")

# descendants prints root and every process below it, with shell builtins
# only: a sample must not fork for every process of the tree while the
# race's workers hold the cores (the local stack's PostgreSQL alone has a
# process per connection); it forks only for hammer's own.
descendants() {
  local todo=("$root") p f kids
  while [[ ${#todo[@]} -gt 0 ]]; do
    p=${todo[0]}
    todo=("${todo[@]:1}")
    echo "$p"
    for f in /proc/"$p"/task/*/children; do
      kids=()
      read -r -a kids <"$f" 2>/dev/null || true
      todo+=("${kids[@]}")
    done
  done
}

# hwm prints VmHWM of process $1 in KiB, nothing if it is gone.
hwm() {
  local key value rest
  while read -r key value rest; do
    [[ $key == VmHWM: ]] && { echo "$value"; return; }
  done <"/proc/$1/status" 2>/dev/null
}

sample() {
  local p kb comm
  for p in $(descendants); do
    read -r comm <"/proc/$p/comm" 2>/dev/null || continue
    [[ $comm == "${exe##*/}" ]] || continue
    [[ $(readlink "/proc/$p/exe" 2>/dev/null) == "$exe" ]] || continue
    kb=$(hwm "$p")
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
