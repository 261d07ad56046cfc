package fault

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/hammer-load/hammer/internal/redislock"
	"github.com/redis/go-redis/v9"
)

// overlap makes the lock vanish with lose while t holds it, waits until
// another contender took it and lets t go on, so that the two overlap.
func overlap(ctx context.Context, c *Coordinator, t *Target, lose func(context.Context) (string, error)) (string, error) {
	if t.Watched {
		// Hold the holder inside its sale while its lock goes, so that it
		// and the next holder overlap.
		if err := stopInside(ctx, c, t); err != nil {
			return "", err
		}
		defer func() { _, _ = c.Procs.Signal(t.Proc, syscall.SIGCONT) }()
	}
	how, err := lose(ctx)
	if err != nil {
		c.Procs.Resume(*t)
		return "", err
	}
	taken := awaitNewHolder(ctx, c)
	c.Procs.Resume(*t)
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

func dial(rawURL string) (*redis.Client, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	return redis.NewClient(opt), nil
}
