package main

import (
	"context"

	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/target"
)

// workerCmd is the hidden subcommand the coordinator starts in each worker
// process; it speaks the driver's protocol on stdin and stdout. A Ctrl-C
// reaches the workers too (they share the terminal's process group), but
// only the coordinator decides when a race stops: it kills the workers.
func workerCmd(ctx context.Context, io stdio) int {
	return driver.WorkerMain(context.WithoutCancel(ctx), io.in, io.out, driver.Kit{
		Contenders: map[string]driver.Connect{target.Kind: target.Connect},
	})
}
