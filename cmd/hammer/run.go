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
	f.register(fs)
	mode := fs.String("mode", "", "reservation `mode`: none, lock-only, update-only or lock-plus-update")
	if code, ok := parse(fs, args, io); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(io, "run: unexpected argument %q", fs.Arg(0))
	}
	if *mode == "" {
		return usageError(io, "run: --mode is required (none, lock-only, update-only or lock-plus-update)")
	}
	m, err := scenarios.ParseMode(*mode)
	if err != nil {
		return usageError(io, "run: %v", err)
	}
	return raceAll(ctx, &f, []scenarios.Scenario{{Name: string(m), Mode: m}}, io)
}
