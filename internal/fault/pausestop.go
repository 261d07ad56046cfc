package fault

import (
	"context"
	"fmt"
	"syscall"

	"github.com/hammer-load/hammer/internal/strategy"
)

// pauseStop stops the whole worker process of a struck holder between its
// read and its write with SIGSTOP, and lets it go on with SIGCONT
// PauseFor later.
type pauseStop struct{ Base }

// At asks the coordinator to stop a struck holder's process at MidWrite.
func (pauseStop) At(ctx context.Context, w *Worker, h Hit) error {
	return strikeAt(ctx, w, h, strategy.MidWrite)
}

// Strike stops the process, waits and lets it go on.
func (pauseStop) Strike(ctx context.Context, c *Coordinator, t *Target) (string, error) {
	if err := stopInside(ctx, c, t); err != nil {
		return "", err
	}
	pid, err := c.Procs.Signal(t.Proc, syscall.SIGSTOP)
	if err != nil {
		// It may have stopped all the same (an agent that did not answer):
		// the failed strike must not leave it stopped or waiting.
		_, _ = c.Procs.Signal(t.Proc, syscall.SIGCONT)
		c.Procs.Resume(*t)
		return "", err
	}
	Sleep(ctx, c.PauseFor) // cut short when the race is interrupted
	where := "between its read and its write"
	if t.Watched {
		where = "in the middle of its sale (its transaction had written, not committed)"
	}
	if _, err := c.Procs.Signal(t.Proc, syscall.SIGCONT); err != nil {
		return "", err
	}
	c.Procs.Resume(*t)
	return fmt.Sprintf("SIGSTOP of %s (pid %d) %s, SIGCONT %s later", c.Procs.Name(t.Proc), pid, where, c.PauseFor), nil
}
