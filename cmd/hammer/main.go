// Command hammer races goroutines in several processes for the seats of one
// sector against a real Redis and PostgreSQL, verifies the sale ledger and
// exits by verdict. Run `hammer help` for the subcommands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// A reader of hammer's output that goes away (hammer run | head -1)
	// must not kill it before it cleans up: with SIGPIPE ignored, a write
	// to the closed pipe fails instead, and hammer goes on to its exit code.
	// A worker, whose only reader is the coordinator, dies with it as ever.
	if len(os.Args) < 2 || os.Args[1] != workerCommand {
		signal.Ignore(syscall.SIGPIPE)
	}
	ctx, stop := withSignals(context.Background(), os.Stderr, os.Exit)
	code := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	stop()
	os.Exit(code)
}
