package fault

import (
	"context"
	"fmt"
	"time"

	"github.com/hammer-load/hammer/internal/redislock"
	"github.com/redis/go-redis/v9"
)

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

// awaitTakeover waits until a contender takes the lock anew (its value
// changes to another holder's), at most ten TTLs, and returns when.
func awaitTakeover(ctx context.Context, c *Coordinator) time.Time {
	rdb, err := dial(c.WatchRedisURL)
	if err != nil {
		return time.Now()
	}
	defer rdb.Close()
	was, _ := rdb.Get(ctx, c.LockKey).Result()
	deadline := time.Now().Add(10 * c.LockTTL)
	for time.Now().Before(deadline) {
		if v, err := rdb.Get(ctx, c.LockKey).Result(); err == nil && v != was {
			break
		}
		if !Sleep(ctx, 100*time.Microsecond) {
			break
		}
	}
	return time.Now()
}

func dial(rawURL string) (*redis.Client, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	return redis.NewClient(opt), nil
}
