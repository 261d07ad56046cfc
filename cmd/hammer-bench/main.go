// Command hammer-bench measures hammer against its anchors (pgbench, a
// minimal Go race, redsync, bsm/redislock, redis-benchmark) on servers of
// its own and prints a Markdown table of ratios with their goals. Run it
// through scripts/bench.sh, which builds hammer first; see BENCHMARKS.md.
package main

import (
	"os"

	"github.com/hammer-load/hammer/internal/bench"
)

func main() { os.Exit(bench.Main(os.Args[1:], os.Stdout, os.Stderr)) }
