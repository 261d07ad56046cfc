package main

import (
	"context"
	"flag"

	"github.com/hammer-load/hammer/scenarios"
)

// runCmd is `hammer run`: one race in one mode.
func runCmd(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("hammer run", flag.ContinueOnError)
	var f raceFlags
	f.register(fs, loadDefaults())
	mode := fs.String("mode", "", "reservation `mode`: none, lock-only, update-only, lock-plus-update or fenced")
	fault := fs.String("fault", "none", "`fault` to inject: none, "+faultNames(" or "))
	extend := fs.Bool("extend", false, "keep extending the lock's TTL while the holder works (heartbeat)")
	fs.Float64Var(&f.rate, "rate", 0, "open model: issue `N` attempts per second in all (with --duration), timed from their intended start")
	fs.DurationVar(&f.duration, "duration", 0, "open model: how long to issue attempts at --rate")
	if code, ok := f.parse(fs, args, io); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(io, "run", "unexpected argument %q", fs.Arg(0))
	}
	if *mode == "" {
		return usageError(io, "run", "--mode is required (none, lock-only, update-only, lock-plus-update or fenced)")
	}
	m, err := scenarios.ParseMode(*mode)
	if err != nil {
		return usageError(io, "run", "%v", err)
	}
	flt, err := scenarios.ParseFault(*fault)
	if err != nil {
		return usageError(io, "run", "%v", err)
	}
	if *extend && !m.UsesLock() {
		return usageError(io, "run", "--extend needs a mode with a lock, not %s", m)
	}
	sc := scenarios.Scenario{Name: scenarios.CellName(m, flt, *extend), Mode: m, Fault: flt, Extend: *extend}
	return raceAll(ctx, raceCommand{name: "run"}, &f, []scenarios.Scenario{sc}, io)
}
