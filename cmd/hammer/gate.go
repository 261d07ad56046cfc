package main

import (
	"context"
	"flag"
	"os"
	"time"

	"github.com/hammer-load/hammer/scenarios"
)

// gateDefaults size a gate cell to run in about a second: 2 × 50 contenders
// for 20 seats, with a lock TTL short enough that faults outlive it quickly.
func gateDefaults() raceFlags {
	return raceFlags{procs: 2, goroutines: 50, attempts: 1, seats: 20, pool: 8,
		lockTTL: 150 * time.Millisecond, lockWait: 5 * time.Second, timeout: time.Minute}
}

// gateCmd is `hammer gate`: the mode × fault matrix as an oversell
// regression gate. It exits 0 only when every cell matches its expectation,
// and writes junit.xml beside summary.json.
func gateCmd(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("hammer gate", flag.ContinueOnError)
	var f raceFlags
	f.register(fs, gateDefaults())
	matrix := fs.String("matrix", "", "matrix `file` to run instead of the default (see scenarios/gate.matrix)")
	if code, ok := f.parse(fs, args, io); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(io, "gate: unexpected argument %q", fs.Arg(0))
	}
	cells := scenarios.Gate()
	if *matrix != "" {
		file, err := os.Open(*matrix)
		if err != nil {
			return usageError(io, "gate: %v", err)
		}
		defer file.Close()
		if cells, err = scenarios.ParseMatrix(file); err != nil {
			return usageError(io, "gate: %s: %v", *matrix, err)
		}
	}
	return raceAll(ctx, "gate", &f, cells, io)
}
