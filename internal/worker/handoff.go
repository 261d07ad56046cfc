package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/strategy"
	"github.com/hammer-load/hammer/internal/wire"
)

// soldOutKey is the Redis key, and channel, of the sector's sold-out hint.
func soldOutKey(cfg wire.Config) string { return cfg.LockKey + ":sold-out" }

// listen subscribes the worker, before the go signal, to the releases of
// hammer's own lock (with handoff) and, if hint is not nil, to the
// sold-out hint, and hands what arrives to locker and hint. The
// subscription is one connection per worker, reconnected by the client if
// it drops; what it misses is found by polling (releases) or by reading
// the hint's key (sold out). stop closes it; with nothing to listen to,
// there is none.
func listen(ctx context.Context, cfg wire.Config, rdb *redis.Client, locker *hammerlock.Locker, hint *strategy.SoldOutHint) (stop func(), err error) {
	var channels []string
	released := ""
	if handoff(cfg) {
		released = hammerlock.ReleasedChannel(cfg.LockKey)
		channels = append(channels, released)
	}
	if hint != nil {
		channels = append(channels, hint.Channel())
	}
	if len(channels) == 0 {
		return func() {}, nil
	}
	ps := rdb.Subscribe(ctx, channels...)
	for range channels {
		if _, err := ps.Receive(ctx); err != nil {
			ps.Close()
			return nil, fmt.Errorf("subscribe to %s: %w", channels[0], err)
		}
	}
	go func() {
		// One reader, no hops in between: the waiter's wake-up is on the
		// lock's critical path.
		for {
			m, err := ps.ReceiveMessage(context.Background())
			switch {
			case errors.Is(err, redis.ErrClosed):
				return
			case err != nil:
				// The next ReceiveMessage reconnects; meanwhile waiters poll.
				time.Sleep(10 * time.Millisecond)
			case m.Channel == released:
				locker.Wake(cfg.LockKey)
			case hint != nil:
				hint.Heard()
			}
		}
	}()
	return func() { ps.Close() }, nil
}
