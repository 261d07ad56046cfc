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

// awaitNewHolder waits until another contender took the lost lock, so
// that the resumed holder and the new one overlap: until someone holds it,
// or a holder was counted after the loss (HolderKey; a Redis that lost
// every key lost the count too). A successor may have come and gone
// before the watch first looks: once the sector sold out, waiters go home
// without the lock (the sold-out hint), and nobody holds it again. So the
// wait is bounded by newHolderWait as well as by ten TTLs: the resumed
// holder then writes after everyone else, which is the overlap too.
func awaitNewHolder(ctx context.Context, c *Coordinator) string {
	rdb, err := dial(c.WatchRedisURL)
	if err != nil {
		return "could not watch the lock: " + err.Error()
	}
	defer rdb.Close()
	locker := redislock.New(rdb, redislock.DefaultBackoff())
	counted := func() int64 {
		n, _ := rdb.Get(ctx, c.HolderKey).Int64() // missing or unreadable: 0
		return n
	}
	before := counted()
	deadline := time.Now().Add(min(10*c.LockTTL, newHolderWait))
	for time.Now().Before(deadline) {
		if h, err := locker.Holder(ctx, c.LockKey); err == nil && h != "" {
			// Let the new holder read before the old one writes.
			Sleep(ctx, 20*time.Millisecond)
			return "another contender took the lock, then the old holder went on"
		}
		if c.HolderKey != "" && counted() > before {
			return "another contender took the lock (and gave it back), then the old holder went on"
		}
		if !Sleep(ctx, time.Millisecond) {
			break
		}
	}
	return "nobody took the lock before the old holder went on"
}

// newHolderWait bounds how long a lost lock's holder is held back waiting
// for a successor: waiters poll a free lock within milliseconds.
const newHolderWait = 3 * time.Second

func dial(rawURL string) (*redis.Client, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	return redis.NewClient(opt), nil
}
