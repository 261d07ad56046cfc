package fault

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/redis/go-redis/v9"
)

// loss is what a fault that takes the lock away did: how, in words, and
// counted, the holders the lock's Redis had counted (HolderKey) right
// after the loss, before any contender could reach it again. A successor
// is told by a count above it, however soon it came and went: a restarted
// Redis can be reached by the workers before hammer has seen it ready,
// and a sector can sell out in that time.
type loss struct {
	how     string
	counted int64
}

// overlap makes the lock vanish with lose while t holds it, waits until
// another contender took it and lets t go on, so that the two overlap.
func overlap(ctx context.Context, c *Coordinator, t *Target, lose func(context.Context) (loss, error)) (string, error) {
	if t.Watched {
		// Hold the holder inside its sale while its lock goes, so that it
		// and the next holder overlap.
		if err := stopInside(ctx, c, t); err != nil {
			return "", err
		}
		defer func() { _, _ = c.Procs.Signal(t.Proc, syscall.SIGCONT) }()
	}
	lost, err := lose(ctx)
	if err != nil {
		c.Procs.Resume(*t)
		return "", err
	}
	taken, err := awaitNewHolder(ctx, c, lost.counted)
	c.Procs.Resume(*t)
	return fmt.Sprintf("%s while %s held it; %s", lost.how, t.RequestID, taken), err
}

// Unmet is what Strike returns, beside its story, when the fault struck
// but the timeline it makes did not happen: the lock was taken from its
// holder, yet nobody took it before the holder went on, so the two never
// overlapped. Why says what did not happen. The run is not judged as if
// the fault had done what it does to a strategy (see
// history.FaultEvent.Unmet).
type Unmet struct{ Why string }

// Error returns Why.
func (u *Unmet) Error() string { return u.Why }

// awaitNewHolder waits until another contender took the lost lock, so
// that the resumed holder and the new one overlap: until someone holds it,
// or more holders than before were counted (HolderKey). A successor may
// have come and gone before the watch first looks: once the sector sold
// out, waiters go home without the lock (the sold-out hint), and nobody
// holds it again; the count still tells. The wait is bounded by
// newHolderWait as well as by ten TTLs. When nobody took it, the story
// says so and the error is an *Unmet.
func awaitNewHolder(ctx context.Context, c *Coordinator, before int64) (string, error) {
	rdb, err := dial(c.WatchRedisURL)
	if err != nil {
		return "", fmt.Errorf("watch the lock: %w", err)
	}
	defer rdb.Close()
	locker := hammerlock.New(rdb, hammerlock.DefaultBackoff())
	deadline := time.Now().Add(min(10*c.LockTTL, newHolderWait))
	for time.Now().Before(deadline) {
		if h, err := locker.Holder(ctx, c.LockKey); err == nil && h != "" {
			// Let the new holder read before the old one writes.
			Sleep(ctx, 20*time.Millisecond)
			return "another contender took the lock, then the old holder went on", nil
		}
		if countedSince(ctx, rdb, c.HolderKey, before) {
			return "another contender took the lock (and gave it back), then the old holder went on", nil
		}
		if !Sleep(ctx, time.Millisecond) {
			break
		}
	}
	const nobody = "nobody took the lock before the old holder went on"
	return nobody, &Unmet{Why: nobody}
}

// countedSince reports whether rdb has counted more holders at key than
// before; a count that cannot be read says no, and the watch looks again.
func countedSince(ctx context.Context, rdb redis.Cmdable, key string, before int64) bool {
	n, err := holdersCounted(ctx, rdb, key)
	return err == nil && n > before
}

// holdersCounted reads how many holders rdb has counted at key: 0 when key
// is empty or missing, an error when it cannot be read (a baseline of 0
// taken for an unreadable one would pass the struck holder's own count
// off as a successor's).
func holdersCounted(ctx context.Context, rdb redis.Cmdable, key string) (int64, error) {
	if key == "" {
		return 0, nil
	}
	return countOf(rdb.Get(ctx, key))
}

// countOf is the count a GET of a holders' count answered: 0 when the key
// is missing.
func countOf(get *redis.StringCmd) (int64, error) {
	n, err := get.Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read the holders' count: %w", err)
	}
	return n, nil
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
