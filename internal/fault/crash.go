package fault

import (
	"context"
	"fmt"
	"syscall"

	"github.com/hammer-load/hammer/internal/strategy"
)

// crash kills the worker process of a struck contender with SIGKILL in the
// middle of its sale.
type crash struct{ Base }

// CountsAt numbers holders at MidWrite and, for planted locks made of
// several commands, inside the acquisition.
func (crash) CountsAt(p strategy.Point, _ bool) bool {
	return p == strategy.MidWrite || p == strategy.AcquireGap
}

// At asks the coordinator to kill a struck contender's process.
func (crash) At(ctx context.Context, w *Worker, h Hit) error {
	return strikeAt(ctx, w, h, strategy.MidWrite, strategy.AcquireGap)
}

// Strike kills the process; the contender never resumes.
func (crash) Strike(ctx context.Context, c *Coordinator, t *Target) (string, error) {
	if err := stopInside(ctx, c, t); err != nil {
		return "", err
	}
	c.Procs.Crashed(t.Proc)
	pid, err := c.Procs.Signal(t.Proc, syscall.SIGKILL)
	if err != nil {
		return "", err
	}
	where := "in the middle of its sale"
	if t.Watched {
		where = "in the middle of its sale (its transaction had written, not committed)"
	}
	return fmt.Sprintf("SIGKILL of %s (pid %d) %s", c.Procs.Name(t.Proc), pid, where), nil
}
