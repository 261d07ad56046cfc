package fault

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/strategy"
)

// clockJump replays the Redlock timeline of a clock jump (Redis docs,
// "Distributed locks with Redis"; Kleppmann, "How to do distributed
// locking"): while a struck holder has the lock on a bare majority of the
// nodes, the wall clock of a node of that majority jumps forward and its
// key expires early, and another contender wins a majority with that
// node. The jump is emulated: the holder's key there gets a PEXPIRE of
// 1 ms (only while it still holds the holder's token); no clock is
// touched.
type clockJump struct{ Base }

// At asks the coordinator to expire the holder's key on a node of its
// majority when a struck holder reaches the point between its read and its
// write.
func (clockJump) At(ctx context.Context, w *Worker, h Hit) error {
	return strikeAt(ctx, w, h, strategy.MidWrite)
}

// Strike expires the struck holder's key early on a node of its (bare)
// majority, waits for another contender to take a majority and lets the
// holder go on.
func (clockJump) Strike(ctx context.Context, c *Coordinator, t *Target) (string, error) {
	return strikeMajority(ctx, c, t, func(ctx context.Context, m *majority) (string, error) {
		l := hammerlock.New(m.nodes[m.victim], hammerlock.DefaultBackoff())
		lease := hammerlock.Lease{Key: m.key, Token: m.token}
		ours, err := l.Extend(ctx, lease, time.Millisecond)
		switch {
		case err != nil:
			return "", fmt.Errorf("expire the holder's key on node %d: %w", m.victim, err)
		case !ours:
			return "", fmt.Errorf("node %d no longer held the holder's key", m.victim)
		}
		if err := awaitGone(ctx, m, m.victim); err != nil {
			return "", err
		}
		return fmt.Sprintf("node %d's clock jumped and the holder's key there expired early (emulated: PEXPIRE of 1 ms)", m.victim), nil
	})
}

// awaitGone waits until node n's lock key no longer holds the struck
// holder's token (a waiter may have set its own there at once).
func awaitGone(ctx context.Context, m *majority, n int) error {
	for range 100 {
		if !slices.Contains(holders(m.spread(ctx), m.token), n) {
			return nil
		}
		if !Sleep(ctx, time.Millisecond) {
			return ctx.Err()
		}
	}
	return errors.New("the key did not expire within 100 ms of its PEXPIRE")
}
