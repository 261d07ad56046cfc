#!/bin/sh
# monitor-cost.sh: what a MONITOR client costs one Redis (docs/target.md,
# docs/design/2026-12-05-lock-from-monitor.md). It starts a throw-away
# redis-server on a free port and runs redis-benchmark against it with and
# without a `redis-cli monitor` following the server, the two sides
# interleaved in each of ROUNDS rounds of N requests. For each round and
# side it prints the benchmark's throughput and p50, and the server's own
# CPU time per command (INFO cpu and INFO stats deltas), which a busy host
# disturbs far less than throughput.
# CSV: round,monitor,test,rps,p50_ms,server_cpu_us_per_cmd
set -eu
PORT=${PORT:-$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')}
ROUNDS=${ROUNDS:-5}
N=${N:-100000}
dir=$(mktemp -d)
redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize no >"$dir/log" 2>&1 &
srv=$!
mon=
trap 'kill $srv 2>/dev/null; [ -n "$mon" ] && kill $mon 2>/dev/null; rm -rf "$dir"' EXIT
until redis-cli -p "$PORT" ping >/dev/null 2>&1; do sleep 0.05; done
cpu() { redis-cli -p "$PORT" info cpu | tr -d '\r' | awk -F: '/^used_cpu_(sys|user):/ {s += $2} END {printf "%.6f", s}'; }
cmds() { redis-cli -p "$PORT" info stats | tr -d '\r' | awk -F: '/^total_commands_processed:/ {print $2}'; }
one() { # round monitor test args...
  r=$1 m=$2 t=$3; shift 3
  c0=$(cpu) n0=$(cmds)
  out=$(redis-benchmark -p "$PORT" -n "$N" -c 50 --csv "$@" | tail -n 1 | tr -d '"')
  c1=$(cpu) n1=$(cmds)
  echo "$out" | awk -F, -v r="$r" -v m="$m" -v t="$t" -v c="$(echo "$c0 $c1 $n0 $n1" | awk '{printf "%.3f", ($2-$1)*1e6/($4-$3)}')" \
    '{print r "," m "," t "," $2 "," $5 "," c}'
}
echo "round,monitor,test,rps,p50_ms,server_cpu_us_per_cmd"
for r in $(seq 1 "$ROUNDS"); do
  for m in no yes; do
    if [ "$m" = yes ]; then
      redis-cli -p "$PORT" monitor >/dev/null &
      mon=$!
      until redis-cli -p "$PORT" client list | grep -q "cmd=monitor"; do sleep 0.05; done
    fi
    one "$r" "$m" "GET" -r 100000 -t get
    one "$r" "$m" "SET NX PX" SET lock:sector:1 __rand_int__ NX PX 100
    if [ "$m" = yes ]; then kill $mon; wait $mon 2>/dev/null || true; mon=; fi
  done
done
