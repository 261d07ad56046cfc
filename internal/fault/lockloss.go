package fault

import (
	"context"
	"fmt"

	"github.com/hammer-load/hammer/internal/strategy"
)

// lockLoss makes the lock key vanish while a struck holder has it: a real
// Redis restart without persistence on a stack hammer manages, the
// deletion of hammer's own lock key on an external one. In a mode admitted
// by a stock counter it sets the counter back to full stock before a
// struck contender's admission, as a restart from a snapshot taken before
// the sale would (see loseStock).
type lockLoss struct{ Base }

// CountsAt numbers holders where the fault strikes them (lossPoint).
func (lockLoss) CountsAt(p strategy.Point, usesLock bool) bool { return p == lossPoint(usesLock) }

// At asks the coordinator to lose what Redis holds when a struck holder
// reaches the fault's point (lossPoint).
func (lockLoss) At(ctx context.Context, w *Worker, h Hit) error {
	return strikeAt(ctx, w, h, lossPoint(h.Attempt.Mode.UsesLock()))
}

// Strike loses the lock, waits for another contender to take it and lets
// the struck holder go on; in a mode with a stock counter it loses the
// count and lets the struck contender go on to its admission.
func (lockLoss) Strike(ctx context.Context, c *Coordinator, t *Target) (string, error) {
	if c.StockKey != "" {
		return recount(ctx, c, t, func(ctx context.Context) (string, error) { return loseStock(ctx, c) })
	}
	return overlap(ctx, c, t, func(ctx context.Context) (string, error) { return loseLock(ctx, c) })
}

// loseLock makes the lock key vanish and says how.
func loseLock(ctx context.Context, c *Coordinator) (string, error) {
	if c.Managed != nil {
		if err := c.Managed.RestartRedis(ctx); err != nil {
			return "", fmt.Errorf("restart redis: %w", err)
		}
		return "Redis restarted without persistence (every key lost)", nil
	}
	rdb, err := dial(c.RedisURL)
	if err != nil {
		return "", err
	}
	defer rdb.Close()
	if err := rdb.Del(ctx, c.LockKey).Err(); err != nil {
		return "", err
	}
	return "the lock key was deleted (emulating a restart or failover of an external Redis)", nil
}
