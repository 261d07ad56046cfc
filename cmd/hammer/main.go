// Command hammer races goroutines in several processes for the seats of one
// sector against a real Redis and PostgreSQL, verifies the sale ledger and
// exits by verdict. Run `hammer help` for the subcommands.
package main

import (
	"context"
	"os"
)

func main() {
	ctx, stop := withSignals(context.Background(), os.Stderr, os.Exit)
	code := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	stop()
	os.Exit(code)
}
