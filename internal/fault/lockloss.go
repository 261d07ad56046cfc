package fault

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/redislock"
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
func (lockLoss) Strike(ctx context.Context, c *Coordinator, t Target) (string, error) {
	return overlap(ctx, c, t, func(ctx context.Context) (string, error) { return loseLock(ctx, c) })
}

// overlap makes the lock vanish with lose while t holds it, waits until
// another contender took it and lets t go on, so that the two overlap.
func overlap(ctx context.Context, c *Coordinator, t Target, lose func(context.Context) (string, error)) (string, error) {
	how, err := lose(ctx)
	if err != nil {
		c.Procs.Resume(t)
		return "", err
	}
	taken := awaitNewHolder(ctx, c)
	c.Procs.Resume(t)
	return fmt.Sprintf("%s while %s held it; %s", how, t.RequestID, taken), nil
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

// awaitNewHolder waits until another contender holds the lost lock, so the
// resumed holder and the new one overlap.
func awaitNewHolder(ctx context.Context, c *Coordinator) string {
	rdb, err := dial(c.WatchRedisURL)
	if err != nil {
		return "could not watch the lock: " + err.Error()
	}
	defer rdb.Close()
	locker := redislock.New(rdb, redislock.DefaultBackoff())
	deadline := time.Now().Add(10 * c.LockTTL)
	for time.Now().Before(deadline) {
		if h, err := locker.Holder(ctx, c.LockKey); err == nil && h != "" {
			// Let the new holder read before the old one writes.
			Sleep(ctx, 20*time.Millisecond)
			return "another contender took the lock, then the old holder went on"
		}
		if !Sleep(ctx, time.Millisecond) {
			break
		}
	}
	return "nobody took the lock before the old holder went on"
}

func dial(rawURL string) (*redis.Client, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	return redis.NewClient(opt), nil
}
