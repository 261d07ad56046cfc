package fault

import (
	"context"
	"fmt"

	"github.com/hammer-load/hammer/internal/strategy"
)

// lockLoss makes the lock key vanish while a struck holder has it: a real
// Redis restart without persistence on a stack hammer manages, the
// deletion of hammer's own lock key on an external one.
type lockLoss struct{ Base }

// At asks the coordinator to lose a struck holder's lock at MidWrite.
func (lockLoss) At(ctx context.Context, w *Worker, h Hit) error {
	return strikeAt(ctx, w, h, strategy.MidWrite)
}

// Strike loses the lock, waits for another contender to take it and lets
// the struck holder go on.
func (lockLoss) Strike(ctx context.Context, c *Coordinator, t *Target) (string, error) {
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
