package main

import (
	"context"

	"github.com/hammer-load/hammer/internal/driver"
)

// workerCmd is the hidden subcommand the coordinator starts in each worker
// process; it speaks the driver's protocol on stdin and stdout.
func workerCmd(ctx context.Context, io stdio) int {
	return driver.WorkerMain(ctx, io.in, io.out, nil)
}
