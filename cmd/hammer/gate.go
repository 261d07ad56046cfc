package main

import (
	"context"
	"flag"

	"github.com/hammer-load/hammer/scenarios"
)

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
		return usageError(io, "gate", "unexpected argument %q", fs.Arg(0))
	}
	cells := scenarios.Gate()
	switch {
	case f.target.file != nil && *matrix != "":
		var err error
		if cells, err = f.target.matrix(*matrix); err != nil {
			return usageError(io, "gate", "%v", err)
		}
	case f.target.file != nil:
		cells = f.target.variants()
	case *matrix != "":
		file, err := scenarios.OpenMatrix(*matrix)
		if err != nil {
			return usageError(io, "gate", "%v", err)
		}
		defer file.Close()
		if cells, err = scenarios.ParseMatrix(file); err != nil {
			return usageError(io, "gate", "%s: %v", *matrix, err)
		}
	}
	return raceAll(ctx, raceCommand{name: "gate", skipUnrunnable: true, junit: "hammer gate"}, &f, cells, io)
}
