package main

import (
	"context"
	"flag"
	"time"

	"github.com/hammer-load/hammer/scenarios"
)

// runCmd is `hammer run`: one race in one mode.
func runCmd(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("hammer run", flag.ContinueOnError)
	var f raceFlags
	f.register(fs, loadDefaults())
	mode := fs.String("mode", "", "reservation `mode`: none, lock-only, update-only, lock-plus-update or fenced")
	fault := fs.String("fault", "none", "`fault` to inject: none, pause, pause-stop, short-ttl, lock-loss, failover, crash, duplicate, slow-release, net-delay or partition")
	extend := fs.Bool("extend", false, "keep extending the lock's TTL while the holder works (heartbeat)")
	fs.Float64Var(&f.rate, "rate", 0, "open model: issue `N` attempts per second in all (with --duration), timed from their intended start")
	fs.DurationVar(&f.duration, "duration", 0, "open model: how long to issue attempts at --rate")
	if code, ok := f.parse(fs, args, io); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(io, "run: unexpected argument %q", fs.Arg(0))
	}
	if *mode == "" {
		return usageError(io, "run: --mode is required (none, lock-only, update-only, lock-plus-update or fenced)")
	}
	m, err := scenarios.ParseMode(*mode)
	if err != nil {
		return usageError(io, "run: %v", err)
	}
	flt, err := scenarios.ParseFault(*fault)
	if err != nil {
		return usageError(io, "run: %v", err)
	}
	if (f.rate > 0) != (f.duration > 0) || f.rate < 0 || f.duration < 0 {
		return usageError(io, "run: --rate and --duration go together and must be positive (got --rate %v --duration %s)", f.rate, f.duration)
	}
	if f.duration >= f.timeout {
		return usageError(io, "run: --duration %s must be shorter than --timeout %s", f.duration, f.timeout)
	}
	if flt != scenarios.NoFault && !isSet(fs, "lock-ttl") {
		// Faults last a few TTLs: keep a faulted run to seconds, not minutes.
		f.lockTTL = faultLockTTL
	}
	sc := scenarios.Scenario{Name: scenarios.CellName(m, flt, *extend), Mode: m, Fault: flt, Extend: *extend}
	return raceAll(ctx, "run", &f, []scenarios.Scenario{sc}, io)
}

// faultLockTTL is the lock TTL of `run --fault` unless --lock-ttl is given.
const faultLockTTL = 500 * time.Millisecond

// isSet reports whether the flag was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
