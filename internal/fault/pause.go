package fault

import (
	"context"
	"fmt"
	"time"

	"github.com/hammer-load/hammer/internal/strategy"
)

// pause stops struck holders between their read and their write for
// PauseFor, with every heartbeat of their process, the way a
// stop-the-world pause would.
type pause struct{ Base }

// At pauses a struck holder at MidWrite.
func (pause) At(_ context.Context, w *Worker, h Hit) error {
	if !h.Struck || h.Point != strategy.MidWrite {
		return nil
	}
	start := time.Now()
	w.begin(h.Attempt, start)
	w.World.Lock()
	time.Sleep(w.PauseFor)
	w.World.Unlock()
	w.Event(h.Attempt, start, fmt.Sprintf("paused %s between its read and its write (pause point in worker %d)", w.PauseFor, h.Attempt.Proc))
	return nil
}
