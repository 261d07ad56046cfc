package main

import (
	"context"
	"flag"

	"github.com/hammer-load/hammer/scenarios"
)

// loadCmd is `hammer load`: the default matrix, every mode against its
// expectation. It exits 0 only if every expectation holds.
func loadCmd(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("hammer load", flag.ContinueOnError)
	var f raceFlags
	f.register(fs, loadDefaults())
	if code, ok := f.parse(fs, args, io); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(io, "load", "unexpected argument %q", fs.Arg(0))
	}
	scns := scenarios.Load()
	if f.target.file != nil {
		scns = f.target.variants()
	}
	return raceAll(ctx, raceCommand{name: "load"}, &f, scns, io)
}
