#!/usr/bin/env bash
# live-bench.sh [--rounds N] [--port P] [-- hammer run flags...]: the race's
# throughput with --live off and on, in interleaved rounds on one machine
# (odd rounds off first, even rounds on first), so that --live is seen to
# cost the race nothing beyond noise.
#
# Each race is `hammer run --mode update-only --procs 1 --goroutines 16
# --attempts 400 --seats 64000 --pool 16` (the bench's throughput race:
# 6,400 attempts, never sold out) unless flags after -- replace it. With
# --live, a stream reader (curl on /events, as a browser would) and a
# Prometheus-like scraper (curl on /metrics every 250 ms) follow the race;
# the same loops run beside the off races too, finding nothing to read.
# Throughput is attempts ÷ elapsed_ms from summary.json (the go signal to
# the last answer: server start-up is not counted).
#
# The servers: $HAMMER_REDIS_URL and $HAMMER_PG_URL when both are set
# (--stack external), else every run starts its own (--stack local).
# Results go to a temporary folder, removed on exit.
#
# Example: scripts/live-bench.sh --rounds 5
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=3 port=18931
race=(--mode update-only --procs 1 --goroutines 16 --attempts 400 --seats 64000 --pool 16)
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --) shift; race=("$@"); break ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "live-bench.sh: unknown argument $1 (see -h)" >&2; exit 2 ;;
  esac
done
for tool in curl jq go; do
  command -v "$tool" >/dev/null || { echo "live-bench.sh: needs $tool" >&2; exit 3; }
done

tmp=$(mktemp -d)
watchers=()
cleanup() {
  [[ ${#watchers[@]} -eq 0 ]] || kill "${watchers[@]}" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/hammer" ./cmd/hammer

stack=(--stack local)
if [[ -n "${HAMMER_REDIS_URL:-}" && -n "${HAMMER_PG_URL:-}" ]]; then
  stack=(--stack external)
fi

# watch URL OUT: follow a live page as a browser (the event stream, into
# OUT) and a scraper (/metrics every 250 ms) would, retrying while
# nothing listens. It runs beside both sides of a pair, so that the off
# race has the same neighbours waking the CPUs (a latency-bound race
# runs faster beside a busy loop than on an idle machine).
watch() {
  local url=$1 out=$2
  ( while :; do curl -sN "$url/events" >>"$out" 2>/dev/null || true; sleep 0.05; done ) &
  watchers=($!)
  ( while :; do curl -s -o /dev/null "$url/metrics" || true; sleep 0.25; done ) &
  watchers+=($!)
}

unwatch() {
  [[ ${#watchers[@]} -eq 0 ]] || { kill "${watchers[@]}" 2>/dev/null || true; wait "${watchers[@]}" 2>/dev/null || true; }
  watchers=()
}

# race NAME LIVE: one race, its attempts per second on stdout.
race() {
  local name=$1 live=$2 out="$tmp/$1"
  local args=(run "${race[@]}" "${stack[@]}" --quiet --out "$out")
  [[ $live == off ]] || args+=(--live "127.0.0.1:$port")
  watch "http://127.0.0.1:$port" "$out.events"
  local code=0
  "$tmp/hammer" "${args[@]}" >"$out.txt" 2>&1 || code=$?
  unwatch
  [[ $code -eq 0 ]] || { echo "live-bench.sh: $name exited $code:" >&2; cat "$out.txt" >&2; exit 1; }
  if [[ $live == on ]] && ! grep -q '^event: verdict' "$out.events"; then
    echo "live-bench.sh: $name: the stream had no verdict" >&2
    exit 1
  fi
  jq -r '.runs[0] | ([.outcomes[]] | add) / .elapsed_ms * 1000 | floor' "$out/summary.json"
  rm -rf "$out" "$out.txt" "$out.events"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "race: hammer run ${race[*]} ${stack[*]}" >&2
printf '%-6s %14s %14s %8s\n' round "off att/s" "on att/s" "on/off"
offs=() ons=()
for r in $(seq 1 "$rounds"); do
  if (( r % 2 )); then
    off=$(race "off-$r" off); on=$(race "on-$r" on)
  else
    on=$(race "on-$r" on); off=$(race "off-$r" off)
  fi
  offs+=("$off") ons+=("$on")
  printf '%-6s %14s %14s %8.3f\n' "$r" "$off" "$on" "$(echo "$on / $off" | bc -l)"
done
moff=$(printf '%s\n' "${offs[@]}" | median)
mon=$(printf '%s\n' "${ons[@]}" | median)
printf '%-6s %14s %14s %8.3f\n' median "$moff" "$mon" "$(echo "$mon / $moff" | bc -l)"
