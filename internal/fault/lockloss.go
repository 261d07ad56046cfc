package fault

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

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
		return recount(ctx, c, t, func(ctx context.Context) (loss, error) { return loseStock(ctx, c) })
	}
	return overlap(ctx, c, t, func(ctx context.Context) (loss, error) { return loseLock(ctx, c) })
}

// loseLock makes the lock key vanish and says how. A restarted Redis
// lost the holders' count with every other key; on an external Redis the
// count is read with the deletion, in one transaction.
func loseLock(ctx context.Context, c *Coordinator) (loss, error) {
	if c.Managed != nil {
		if err := c.Managed.RestartRedis(ctx); err != nil {
			return loss{}, fmt.Errorf("restart redis: %w", err)
		}
		return loss{how: "Redis restarted without persistence (every key lost)"}, nil
	}
	rdb, err := dial(c.RedisURL)
	if err != nil {
		return loss{}, err
	}
	defer rdb.Close()
	var count *redis.StringCmd
	var del *redis.IntCmd
	// A failed transaction sets its error on every command, del included;
	// a count that is missing (redis.Nil) is not a failure.
	_, _ = rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		if c.HolderKey != "" {
			count = p.Get(ctx, c.HolderKey)
		}
		del = p.Del(ctx, c.LockKey)
		return nil
	})
	if err := del.Err(); err != nil {
		return loss{}, err
	}
	lost := loss{how: "the lock key was deleted (emulating a restart or failover of an external Redis)"}
	if count != nil {
		if lost.counted, err = countOf(count); err != nil {
			return loss{}, err
		}
	}
	return lost, nil
}
