// Command hammer-bench measures hammer against its anchors (pgbench, a
// minimal Go race, redsync, bsm/redislock, redis-benchmark) on servers of
// its own and prints a Markdown table of ratios with their goals. Run it
// through scripts/bench.sh, which builds hammer first; see BENCHMARKS.md.
// Started with bench.RaceProcessArg it is one process of the bench's
// minimal race in several processes instead; with bench.GoStartArg, the
// anchor of the flash sale's start.
package main

import (
	"os"

	"github.com/hammer-load/hammer/internal/bench"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == bench.RaceProcessArg {
		os.Exit(bench.RaceProcess(os.Stdin, os.Stdout))
	}
	if len(os.Args) > 1 && os.Args[1] == bench.GoStartArg {
		os.Exit(bench.GoStart(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(bench.Main(os.Args[1:], os.Stdout, os.Stderr))
}
