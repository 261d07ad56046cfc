package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/hammer-load/hammer/internal/sysmon"
	"github.com/hammer-load/hammer/internal/target"
	"github.com/hammer-load/hammer/internal/worker"
)

// workerCmd is the hidden subcommand the coordinator (or an agent) starts
// in each worker process: the body of internal/worker, which speaks the
// messages of internal/wire on stdin and stdout. A Ctrl-C reaches the
// workers too (they share the terminal's process group), but only the
// coordinator decides when a race stops: it kills the workers.
// --clock-offset comes from an agent playing a host whose clock is off
// (tests). Its pipes go through Go's poller: a worker runs with its
// runtime's monitor kept awake, and a goroutine blocked in a read of stdin
// would hold the worker's P for up to 20 ms (see sysmon).
func workerCmd(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("hammer "+workerCommand, flag.ContinueOnError)
	offset := fs.Duration("clock-offset", 0, "play a host whose clock reads this much ahead")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(io.err, "hammer %s: %v\n", workerCommand, err)
		return exitUsage
	}
	if f, ok := io.in.(*os.File); ok {
		io.in = sysmon.Pollable(f)
	}
	if f, ok := io.out.(*os.File); ok {
		io.out = sysmon.Pollable(f)
	}
	return worker.Main(context.WithoutCancel(ctx), io.in, io.out, worker.Kit{
		Contenders:  map[string]worker.Connect{target.Kind: target.Connect},
		ClockOffset: *offset,
	})
}
